// SPDX-License-Identifier: MIT
/* The symbol cache (record/archive/symbol_cache.h): for the same sampled
 * addresses, an archive from the cache, cold (entry collected) or warm
 * (entry reused), is byte for byte the one trec_archive_build_sampled
 * gives, on files with DWARF (this test, libc with its debug file and
 * libasan when installed); a damaged, truncated or foreign entry is refused with a
 * warning and collected again; mutated entries parse or fail cleanly. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "format/archive/archive_reader.h"
#include "record/archive/archive.h"
#include "record/archive/archive_build.h"
#include "record/archive/symbol_cache.h"
#include "record/io/cache_file.h"
#include "record/procs/file_id.h"
#include "unit_check.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct target {
	const char *path;
	struct trec_file f;
	struct trec_archive *full; /* level symbols: where addresses come from */
};

static int open_target(struct target *t, const char *path)
{
	uint8_t *p;
	size_t n;
	char why[160];
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (fd < 0)
		return -errno;
	err = trec_file_describe(fd, "", &t->f);
	close(fd);
	if (err || !t->f.build_id_len)
		return -ENOENT;
	if (trec_archive_build(path, NULL, 0, TREC_ARCHIVE_SYMBOLS, &p, &n, NULL))
		return -ENOEXEC;
	err = trec_archive_parse(p, n, &t->full, why, sizeof(why));
	free(p);
	return err || !trec_archive_tables(t->full)->num_syms ? -ENOEXEC : 0;
}

/* n addresses inside random symbols, a few anywhere in the text. */
static uint64_t *addresses(const struct target *t, size_t n)
{
	const struct trec_arc_tables *tb = trec_archive_tables(t->full);
	uint64_t lo = tb->syms[0].addr, hi = tb->syms[tb->num_syms - 1].addr + 1;
	uint64_t *a = malloc((n + 1) * sizeof(*a));

	for (size_t i = 0; a && i < n; i++) {
		const struct trec_arc_sym *s = &tb->syms[next() % tb->num_syms];
		a[i] = next() % 16 ? s->addr + (s->size ? next() % s->size : 0)
				   : lo + next() % (hi - lo);
	}
	return a;
}

/* One comparison: the cache's answer (and how) against the direct build. */
static int compare(const char *dir, const struct target *t, const uint64_t *a, size_t n,
		   int *how, uint32_t *lines)
{
	uint8_t *p1 = NULL, *p2 = NULL;
	size_t n1 = 0, n2 = 0;
	struct trec_archive_stats s1, s2;
	int r1 = trec_archive_build_sampled(t->path, t->f.build_id, t->f.build_id_len, a, n, &p1,
					    &n1, &s1);
	int r2 = trec_symbol_cache_sampled(dir, t->path, t->f.build_id, t->f.build_id_len, a, n,
					   &p2, &n2, &s2, how);
	int same = !r1 && !r2 && n1 == n2 && !memcmp(p1, p2, n1);

	if (!r1)
		*lines += s1.lines;
	free(p1);
	free(p2);
	return same;
}

static void entry_path(const char *dir, const struct target *t, char *path, size_t len)
{
	if (trec_symbol_cache_entry(dir, t->path, t->f.build_id, t->f.build_id_len, path, len))
		path[0] = 0;
}

static void same_archives(const char *dir, struct target *t)
{
	static const size_t sizes[] = { 1, 40, 150, 240, 240, 300, 400 };
	uint32_t lines = 0;
	int ok = 1, cold = -1, warm = 1, how = 0;
	char msg[512];

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint64_t *a = addresses(t, sizes[k]);
		ok &= a && compare(dir, t, a, sizes[k], &how, &lines);
		if (k == 0)
			cold = how;
		else
			warm &= how == TREC_SYMCACHE_HIT;
		free(a);
	}
	snprintf(msg, sizeof(msg), "%s: cached archives equal the direct build's", t->path);
	CHECK(msg, ok);
	snprintf(msg, sizeof(msg), "%s: the first collects the entry, the rest reuse it", t->path);
	CHECK(msg, cold == TREC_SYMCACHE_BUILT && warm);
	if (!strcmp(t->path, "/proc/self/exe")) {
		snprintf(msg, sizeof(msg), "%s: the comparison covered DWARF lines (%u)", t->path,
			 lines);
		CHECK(msg, lines > 0);
	}
}

/* Rewrites the file at path through f (damage), then checks the next
 * answer is collected again and still equal, and the one after reused. */
static void refused(const char *dir, struct target *t, const char *what,
		    void (*damage)(uint8_t *, size_t *))
{
	char path[4200], msg[256];
	uint8_t *buf = NULL;
	size_t len = 0;
	uint64_t *a = addresses(t, 60);
	uint32_t lines = 0;
	int how = 0, ok;

	entry_path(dir, t, path, sizeof(path));
	ok = a && !trec_cache_read(path, (size_t)1 << 30, &buf, &len);
	if (ok) {
		damage(buf, &len);
		FILE *f = fopen(path, "w");
		ok = f && fwrite(buf, 1, len, f) == len;
		if (f)
			fclose(f);
	}
	ok = ok && compare(dir, t, a, 60, &how, &lines) && how == TREC_SYMCACHE_BUILT;
	snprintf(msg, sizeof(msg), "a %s entry is refused and collected again", what);
	CHECK(msg, ok);
	snprintf(msg, sizeof(msg), "the entry rewritten after a %s one is reused", what);
	CHECK(msg, a && compare(dir, t, a, 60, &how, &lines) && how == TREC_SYMCACHE_HIT);
	free(buf);
	free(a);
}

static void flip(uint8_t *b, size_t *n)
{
	b[*n / 2] ^= 0x40;
}

static void truncate_half(uint8_t *b, size_t *n)
{
	(void)b;
	*n /= 2;
}

static void other_bid(uint8_t *b, size_t *n)
{
	b[16] ^= 1; /* the first build-id byte; the CRC then fails too */
	(void)n;
}

/* Valid CRCs around mutated bytes: the structural checks must hold. */
static void mutations(const char *dir, struct target *t)
{
	char path[4200];
	uint8_t *buf = NULL;
	size_t len = 0;
	int clean = 1, refusals = 0;

	entry_path(dir, t, path, sizeof(path));
	if (trec_cache_read(path, (size_t)1 << 30, &buf, &len) || len < 64) {
		CHECK("mutations: read the entry", 0);
		free(buf);
		return;
	}
	uint8_t *m = malloc(len);
	for (int i = 0; m && i < 400; i++) {
		memcpy(m, buf, len);
		for (int k = 0; k < 4; k++)
			m[next() % (len - 4)] = (uint8_t)next();
		size_t n = i % 3 ? len : 16 + next() % (len - 16);
		uint32_t c = (uint32_t)crc32(0, m, (uInt)(n - 4));
		for (int k = 0; k < 4; k++)
			m[n - 4 + k] = (uint8_t)(c >> 8 * k);
		const uint8_t *arc;
		size_t alen;
		struct arc_units u;
		char why[200];
		int err = trec_symbol_cache_parse(m, n, t->f.build_id, t->f.build_id_len, &arc,
						  &alen, &u, why, sizeof(why));
		if (!err) {
			for (size_t r = 0; r < u.nruns; r++)
				clean &= u.runs[r].unit == UINT32_MAX || u.runs[r].unit < u.nunits;
			arc_units_free(&u);
		} else {
			clean &= err == -EINVAL;
			refusals++;
		}
	}
	CHECK("mutated entries parse in bounds or are refused", m && clean && refusals > 0);
	free(m);
	free(buf);
}

int main(void)
{
	char dir[] = "/tmp/trec-symcache.XXXXXX", cmd[256];
	/* libasan: CUs whose ranges start at one address (COMDAT copies),
	 * where which CU libdwfl picks depends on the exact address. */
	const char *paths[] = { "/proc/self/exe", "/usr/lib/x86_64-linux-gnu/libc.so.6",
				"/lib64/ld-linux-x86-64.so.2",
				"/usr/lib/x86_64-linux-gnu/libasan.so.8" };
	struct target self;

	if (!mkdtemp(dir)) {
		CHECK("setup", 0);
		return 1;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct target t;
		if (open_target(&t, paths[i])) {
			if (i == 0)
				CHECK("this test's own binary has a build-id and symbols", 0);
			continue; /* another machine's layout */
		}
		same_archives(dir, &t);
		trec_archive_free(t.full);
		trec_file_release(&t.f);
	}
	if (!open_target(&self, "/proc/self/exe")) {
		refused(dir, &self, "damaged", flip);
		refused(dir, &self, "truncated", truncate_half);
		refused(dir, &self, "foreign", other_bid);
		mutations(dir, &self);
		uint8_t wrong[20] = { 0 };
		uint8_t *p;
		size_t n;
		struct trec_archive_stats st;
		int how;
		CHECK("another build-id at the path is left to the direct build",
		      trec_symbol_cache_sampled(dir, self.path, wrong, sizeof(wrong), NULL, 0, &p, &n,
						&st, &how) == -ENOENT);
		CHECK("no cache directory: left to the direct build",
		      trec_symbol_cache_sampled(NULL, self.path, self.f.build_id,
						self.f.build_id_len, NULL, 0, &p, &n, &st,
						&how) == -ENOENT);
		trec_archive_free(self.full);
		trec_file_release(&self.f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK("cleanup", system(cmd) == 0);
	return failures != 0;
}
