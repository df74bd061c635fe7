// SPDX-License-Identifier: MIT
/* The symbol-archive cache: see symbol_cache.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "format/archive/archive_reader.h"
#include "record/archive/archive_build.h"
#include "record/archive/symbol_cache.h"
#include "record/clock.h"
#include "record/io/cache_file.h"
#include "record/procs/file_id.h"
#include "record/procs/open_regular.h"
#include "record/unwind/delta_cache.h"

/* Far past any real entry (libLLVM's rows are about 100 MB). */
#define MAX_ENTRY ((size_t)1 << 30)

static char cache_dir[4096];

void trec_symbol_cache_use(bool on)
{
	if (!on || trec_delta_cache_dir(cache_dir, sizeof(cache_dir)))
		cache_dir[0] = 0;
}

const char *trec_symbol_cache_dir(void)
{
	return cache_dir[0] ? cache_dir : NULL;
}

/* The build-id at path is bid (else the direct build reports the change);
 * *size gets the file's size. */
static bool same_file(const char *path, const uint8_t *bid, size_t bid_len, uint64_t *size)
{
	struct trec_file f;
	struct stat sb;
	int fd = trec_open_regular(path);
	bool same;

	if (fd < 0)
		return false;
	if (fstat(fd, &sb) || trec_file_describe(fd, "", &f)) {
		close(fd);
		return false;
	}
	close(fd);
	*size = (uint64_t)sb.st_size;
	same = f.is_elf && f.build_id_len == bid_len && !memcmp(f.build_id, bid, bid_len);
	trec_file_release(&f);
	return same;
}

/* The tables of a level-symbols archive of bid, or NULL (warned: why). */
static struct trec_archive *parse_symbols(const uint8_t *arc, size_t alen, const uint8_t *bid,
					  size_t bid_len, char *why, size_t why_len)
{
	struct trec_archive *a = NULL;
	if (trec_archive_parse(arc, alen, &a, why, why_len))
		return NULL;
	const struct trec_arc_tables *t = trec_archive_tables(a);
	if (t->level != TREC_ARCHIVE_SYMBOLS || t->build_id_len != bid_len ||
	    memcmp(t->build_id, bid, bid_len) || (t->sources & TREC_ARC_SRC_GOPCLNTAB)) {
		snprintf(why, why_len, "not the symbols of this build-id");
		trec_archive_free(a);
		return NULL;
	}
	return a;
}

/* The entry at path: its archive and units, or NULL (no entry, or a
 * damaged one: warned about). */
static struct trec_archive *load_entry(const char *path, const uint8_t *bid, size_t bid_len,
				       struct arc_units *u)
{
	uint8_t *buf = NULL;
	const uint8_t *arc;
	size_t len = 0, alen;
	char why[200];
	struct trec_archive *a = NULL;
	int err = trec_cache_read(path, MAX_ENTRY, &buf, &len);

	if (err == -EINVAL)
		snprintf(why, sizeof(why), "not a regular file of at most %zu bytes", MAX_ENTRY);
	if (!err)
		err = trec_symbol_cache_parse(buf, len, bid, bid_len, &arc, &alen, u, why,
					      sizeof(why));
	if (!err && !(a = parse_symbols(arc, alen, bid, bid_len, why, sizeof(why)))) {
		arc_units_free(u);
		err = -EINVAL;
	}
	free(buf);
	if (err == -EINVAL)
		fprintf(stderr, "trecord: warning: ignoring the damaged symbol cache entry %s: %s\n",
			path, why);
	return a;
}

/* Collects the file's entry and stores it at path; NULL when the file
 * cannot be cached (a Go binary, a CU map libdwfl does not follow) or
 * read (the direct build then says why). */
static struct trec_archive *build_entry(const char *dir, const char *path, const char *file,
					const uint8_t *bid, size_t bid_len, const uint64_t *addrs,
					size_t naddrs, struct arc_units *u)
{
	uint8_t *arc = NULL, *entry = NULL;
	size_t alen = 0, elen = 0;
	struct trec_archive *a = NULL;
	char why[200];

	if (trec_archive_build(file, bid, bid_len, TREC_ARCHIVE_SYMBOLS, &arc, &alen, NULL))
		return NULL;
	a = parse_symbols(arc, alen, bid, bid_len, why, sizeof(why));
	if (a && arc_collect_units(u, file, bid, bid_len, addrs, naddrs)) {
		trec_archive_free(a);
		a = NULL;
	}
	if (a && !trec_symbol_cache_encode(arc, alen, u, bid, bid_len, &entry, &elen))
		trec_cache_write(dir, TREC_SYMBOL_CACHE_SUBDIR, path, entry, elen);
	if (!a)
		arc_units_free(u);
	free(arc);
	free(entry);
	return a;
}

static void *dup_array(const void *p, size_t n, size_t size, int *oom)
{
	void *q = malloc(n ? n * size : 1);
	if (!q)
		*oom = 1;
	else if (n)
		memcpy(q, p, n * size);
	return q;
}

/* A builder holding t (finalized tables), owning copies of everything, as
 * arc_collect and arc_finalize_tables would leave it. */
static int builder_from(struct arc_builder *b, const struct trec_arc_tables *t)
{
	int oom = 0;

	b->t = *t;
	b->t.strings = NULL;
	b->t.num_strings = 0;
	b->t.num_depths = 0;
	b->t.syms = dup_array(t->syms, t->num_syms, sizeof(*t->syms), &oom);
	b->t.lines = dup_array(t->lines, t->num_lines, sizeof(*t->lines), &oom);
	b->t.sections = dup_array(t->sections, t->num_sections, sizeof(*t->sections), &oom);
	b->t.segments = dup_array(t->segments, t->num_segments, sizeof(*t->segments), &oom);
	b->t.depths = calloc(t->num_depths + 1, sizeof(*b->t.depths));
	b->strs = calloc(t->num_strings + 1, sizeof(*b->strs));
	b->t.strings = calloc(t->num_strings + 1, sizeof(*b->t.strings));
	if (oom || !b->t.depths || !b->strs || !b->t.strings)
		return -ENOMEM;
	for (size_t d = 0; d < t->num_depths; d++, b->t.num_depths++) {
		b->t.depths[d].num = t->depths[d].num;
		b->t.depths[d].v = dup_array(t->depths[d].v, t->depths[d].num,
					     sizeof(*t->depths[d].v), &oom);
	}
	for (size_t i = 0; i < t->num_strings && !oom; i++, b->t.num_strings++) {
		b->strs[i] = strdup(t->strings[i]);
		b->t.strings[i] = b->strs[i];
		oom = !b->strs[i];
	}
	b->cap_strs = t->num_strings + 1;
	b->syms_final = 1; /* sorting them again would give the same table */
	return oom ? -ENOMEM : 0;
}

/* The rows of the units addrs select, in the order they first select
 * them: what collect_dwarf gives level sampled. */
static int replay(struct arc_builder *b, const struct arc_units *u, const uint64_t *addrs,
		  size_t naddrs)
{
	size_t *first = malloc((2 * u->nunits + 1) * sizeof(*first));
	uint8_t *seen = calloc(u->nunits + 1, 1);
	size_t l = 0, k = 0;

	if (!first || !seen) {
		free(first);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u->nunits; i++) {
		first[2 * i] = l;
		first[2 * i + 1] = k;
		l += u->units[i].nlines;
		k += u->units[i].ninls;
	}
	for (size_t i = 0; i < naddrs && !b->oom; i++) {
		uint32_t n = arc_unit_of(u, addrs[i]);
		if (n == UINT32_MAX || seen[n])
			continue;
		seen[n] = 1;
		const struct trec_arc_line *ln = &u->b.t.lines[first[2 * n]];
		for (uint32_t j = 0; j < u->units[n].nlines; j++)
			arc_add_line(b, ln[j].addr, ln[j].file ? u->b.strs[ln[j].file - 1] : NULL,
				     ln[j].line);
		const struct arc_unit_inline *x = &u->inls[first[2 * n + 1]];
		for (uint32_t j = 0; j < u->units[n].ninls; j++)
			arc_add_inline(b, x[j].depth, x[j].lo, x[j].hi, u->b.strs[x[j].name],
				       x[j].call_file ? u->b.strs[x[j].call_file - 1] : NULL,
				       x[j].call_line);
	}
	free(first);
	free(seen);
	if (u->has_cu)
		b->t.sources |= TREC_ARC_SRC_DWARF;
	return b->oom ? -ENOMEM : 0;
}

int trec_symbol_cache_entry(const char *dir, const char *path, const uint8_t *bid,
			    size_t bid_len, char *entry, size_t len)
{
	uint64_t size = 0;
	size_t n;

	if (!bid_len || trec_cache_entry_path(dir, TREC_SYMBOL_CACHE_SUBDIR, bid, bid_len, entry, len) ||
	    !same_file(path, bid, bid_len, &size))
		return -ENOENT;
	/* The size too: a stripped copy keeps its build-id but not its
	 * symbols, and must not be given the unstripped file's entry. */
	n = strlen(entry);
	if ((size_t)snprintf(entry + n, len - n, "-%" PRIx64, size) >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

int trec_symbol_cache_sampled(const char *dir, const char *path, const uint8_t *bid,
			      size_t bid_len, const uint64_t *addrs, size_t naddrs,
			      uint8_t **out, size_t *out_len, struct trec_archive_stats *st,
			      int *how)
{
	char entry[4096];
	uint64_t start = trec_now_ns();
	struct arc_builder b = { 0 };
	struct arc_units u = { 0 };
	struct trec_archive *a;
	int err;

	if (!dir || trec_symbol_cache_entry(dir, path, bid, bid_len, entry, sizeof(entry)))
		return -ENOENT;
	*how = TREC_SYMCACHE_HIT;
	a = load_entry(entry, bid, bid_len, &u);
	if (!a) {
		*how = TREC_SYMCACHE_BUILT;
		a = build_entry(dir, entry, path, bid, bid_len, addrs, naddrs, &u);
	}
	if (!a)
		return -ENOENT;
	err = builder_from(&b, trec_archive_tables(a));
	b.t.level = TREC_ARCHIVE_SAMPLED;
	if (!err)
		err = replay(&b, &u, addrs, naddrs);
	if (!err)
		err = arc_finalize_tables(&b);
	if (!err)
		err = arc_restrict(&b, addrs, naddrs);
	if (!err)
		err = trec_archive_encode(&b.t, out, out_len);
	if (!err)
		arc_stats(&b, *out_len, start, st);
	arc_builder_free(&b);
	arc_units_free(&u);
	trec_archive_free(a);
	return err;
}
