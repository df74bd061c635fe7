// SPDX-License-Identifier: MIT
/*
 * The archives of one or more recordings, by file id: SYMTAB parts are
 * copied as the reader returns them (its memory does not outlive the
 * record), joined and parsed the first time the symbolizer asks for a file.
 * Recordings of the same file each bring its archive: at level sampled
 * each holds lines of different functions, so all of them are kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/archive/archive_reader.h"
#include "format/containers/u64map.h"
#include "report/archive/archive_store.h"
#include "report/util.h"
#include "trec_format.h"

/* A file's archives are few (one per merged recording of it); past these
 * bounds a hostile file would only cost memory and time. */
#define MAX_ARCHIVES_PER_ID 64
#define MAX_STORED_BYTES (512u << 20)

struct part {
	uint32_t idx;
	uint8_t *data;
	size_t len;
};

struct entry {
	uint64_t file_id;
	uint32_t nparts, have;
	struct part *parts; /* as received; sorted by idx once complete */
	size_t cap_parts;
	uint8_t *got;       /* nparts bits: which parts came (got_small up to 64) */
	uint64_t got_small;
	struct trec_archive *archive;
	int state;          /* 0 collecting, 1 parsed, -1 unusable (warned) */
	size_t next;        /* index + 1 of the file's next entry; 0: none */
};

/* A file id's entries: a chain through entry.next, in the order they began. */
struct id_info {
	size_t first, last;
	uint32_t count;
	bool warned_many;
};

struct trec_archive_store {
	struct entry *v;
	size_t n, cap;
	struct trec_u64map ids; /* file id -> struct id_info */
	uint64_t *order;        /* file ids in the order first seen */
	size_t norder, cap_order;
	uint64_t bytes;         /* parts held (MAX_STORED_BYTES) */
	bool warned_bytes;
	trec_archive_warn_fn warn;
	void *warn_ctx;
};

static void warnf(struct trec_archive_store *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->warn)
		s->warn(s->warn_ctx, msg);
	else
		fprintf(stderr, "treport: warning: %s\n", msg);
}

struct trec_archive_store *trec_archive_store_new(trec_archive_warn_fn warn, void *ctx)
{
	struct trec_archive_store *s = xcalloc(1, sizeof(*s));

	s->warn = warn;
	s->warn_ctx = ctx;
	return s;
}

static void drop_parts(struct trec_archive_store *s, struct entry *e)
{
	for (size_t i = 0; i < e->have; i++) {
		s->bytes -= e->parts[i].len;
		free(e->parts[i].data);
	}
	free(e->parts);
	free(e->got);
	e->got_small = 0;
	e->parts = NULL;
	e->got = NULL;
	e->nparts = e->have = 0;
	e->cap_parts = 0;
}

void trec_archive_store_free(struct trec_archive_store *s)
{
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		drop_parts(s, &s->v[i]);
		trec_archive_free(s->v[i].archive);
	}
	for (size_t i = 0; trec_u64map_next(&s->ids, &i, &k, &v);)
		free(v);
	trec_u64map_free(&s->ids);
	free(s->order);
	free(s->v);
	free(s);
}

/* The k-th entry of file_id (in the order they began). */
static struct entry *find_nth(const struct trec_archive_store *s, uint64_t file_id, size_t k)
{
	const struct id_info *in = trec_u64map_get(&s->ids, file_id);

	if (!in || k >= in->count)
		return NULL;
	size_t i = in->first;
	while (k--)
		i = s->v[i].next - 1;
	return &s->v[i];
}

static int complete(const struct entry *e)
{
	return e->nparts && e->have == e->nparts;
}

/* The entry the parts of file_id go to now: the last one, unless it is
 * done and part 0 begins another archive (of a later recording). */
static struct entry *collecting(const struct trec_archive_store *s, uint64_t file_id,
				uint32_t part, bool *another)
{
	const struct id_info *in = trec_u64map_get(&s->ids, file_id);
	struct entry *e = in ? &s->v[in->last] : NULL;

	*another = e && (e->state || complete(e)) && part == 0;
	return e;
}

static int by_idx(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* A just completed archive identical to an earlier one of its file adds
 * nothing: drop it (merged recordings of one binary at level full). e is
 * the last entry, and the last of its id. */
static void drop_if_repeated(struct trec_archive_store *s, struct entry *e)
{
	struct id_info *in = trec_u64map_get(&s->ids, e->file_id);
	size_t last = (size_t)(e - s->v);

	for (size_t j = in->first; j != last; j = s->v[j].next - 1) {
		const struct entry *o = &s->v[j];
		if (o->state || !complete(o) || o->nparts != e->nparts)
			continue;
		uint32_t i = 0;
		while (i < e->nparts && o->parts[i].len == e->parts[i].len &&
		       !memcmp(o->parts[i].data, e->parts[i].data, e->parts[i].len))
			i++;
		if (i < e->nparts)
			continue;
		/* e leaves its chain: its predecessor, at or after j, ends it */
		size_t prev = j;
		while (s->v[prev].next - 1 != last)
			prev = s->v[prev].next - 1;
		drop_parts(s, e);
		s->v[prev].next = 0;
		in->last = prev;
		in->count--;
		s->n--;
		return;
	}
}

/* A new entry for file_id, last of its chain; NULL past the bounds. */
static struct entry *begin_entry(struct trec_archive_store *s, uint64_t file_id)
{
	struct id_info *in = trec_u64map_get(&s->ids, file_id);

	if (in && in->count >= MAX_ARCHIVES_PER_ID) {
		if (!in->warned_many)
			warnf(s, "file id %#" PRIx64 ": more than %u archives; the rest ignored",
			      file_id, MAX_ARCHIVES_PER_ID);
		in->warned_many = true;
		return NULL;
	}
	RP_GROW(s->v, s->cap, s->n + 1);
	struct entry *e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->file_id = file_id;
	if (in) {
		s->v[in->last].next = s->n + 1;
		in->last = s->n;
		in->count++;
	} else {
		in = xcalloc(1, sizeof(*in));
		in->first = in->last = s->n;
		in->count = 1;
		if (trec_u64map_put_new(&s->ids, file_id, in) != in)
			rp_out_of_memory(sizeof(*in));
		RP_GROW(s->order, s->cap_order, s->norder + 1);
		s->order[s->norder++] = file_id;
	}
	s->n++;
	return e;
}

int trec_archive_store_add(struct trec_archive_store *s, const struct trec_blob *b)
{
	uint32_t part = TREC_SYMTAB_PART(b->subtype), nparts = TREC_SYMTAB_NPARTS(b->subtype);
	if (TREC_SYMTAB_KIND(b->subtype) != TREC_SYMTAB_KIND_ARCHIVE)
		return 0; /* a kind a later version defines */
	if (!nparts || part >= nparts) {
		warnf(s, "file id %#" PRIx64 ": SYMTAB record with part %u of %u ignored",
		      b->file_id, part, nparts);
		return 0;
	}
	if (!b->len)
		return 0; /* (no archive is made of an empty part) */
	if (s->bytes + b->len > MAX_STORED_BYTES) {
		if (!s->warned_bytes)
			warnf(s, "embedded symbols past %u MiB in all; the rest ignored",
			      MAX_STORED_BYTES >> 20);
		s->warned_bytes = true;
		return 0;
	}
	bool another;
	struct entry *e = collecting(s, b->file_id, part, &another);
	if (another)
		e = NULL;
	else if (e && (e->state || complete(e)))
		return 0; /* a repeated part of a complete archive */
	if (e && e->nparts != nparts) {
		warnf(s, "file id %#" PRIx64 ": SYMTAB parts of two archives mixed; "
		      "keeping the later one", b->file_id);
		drop_parts(s, e);
	}
	if (!e && !(e = begin_entry(s, b->file_id)))
		return 0;
	if (!e->nparts) {
		/* (most archives are one part: nothing allocated for the bits,
		 * and the parts array sized to the first few) */
		e->got = nparts > 64 ? xcalloc((nparts + 7) / 8, 1) : NULL;
		e->cap_parts = nparts < 16 ? nparts : 16;
		e->parts = xmalloc(e->cap_parts * sizeof(*e->parts));
		e->nparts = nparts;
	}
	uint8_t *byte = e->got ? &e->got[part / 8] : (uint8_t *)&e->got_small + part / 8;
	if (*byte & (1u << (part % 8)))
		return 0;
	*byte |= (uint8_t)(1u << (part % 8));
	RP_GROW(e->parts, e->cap_parts, e->have + 1);
	struct part *p = &e->parts[e->have++];
	p->idx = part;
	p->data = xmalloc(b->len);
	memcpy(p->data, b->data, b->len);
	p->len = b->len;
	s->bytes += b->len;
	if (complete(e)) {
		qsort(e->parts, e->have, sizeof(*e->parts), by_idx);
		if (e == &s->v[s->n - 1])
			drop_if_repeated(s, e);
	}
	return 0;
}

static void parse_entry(struct trec_archive_store *s, struct entry *e, const char *name)
{
	size_t total = 0;
	for (uint32_t i = 0; i < e->nparts; i++)
		total += e->parts[i].len;
	uint8_t *joined = e->nparts == 1 ? e->parts[0].data : xmalloc(total);
	if (e->nparts > 1)
		for (size_t i = 0, off = 0; i < e->nparts; off += e->parts[i].len, i++)
			memcpy(joined + off, e->parts[i].data, e->parts[i].len);
	char err[256];
	int rc = trec_archive_parse(joined, total, &e->archive, err, sizeof(err));
	if (joined != e->parts[0].data)
		free(joined);
	if (rc == -ENOMEM)
		rp_out_of_memory(total);
	if (rc)
		warnf(s, "%s: embedded symbols unusable: %s", name, err);
	drop_parts(s, e);
	e->state = rc ? -1 : 1;
}

const struct trec_archive *trec_archive_store_get(struct trec_archive_store *s,
						  uint64_t file_id, const char *name)
{
	return trec_archive_store_get_nth(s, file_id, name, 0);
}

const struct trec_archive *trec_archive_store_get_nth(struct trec_archive_store *s,
						      uint64_t file_id, const char *name, size_t k)
{
	struct entry *e = find_nth(s, file_id, k);
	if (!e || e->state < 0)
		return NULL;
	if (!e->state) {
		if (!complete(e)) {
			warnf(s, "%s: embedded symbols incomplete (%u of %u parts)", name, e->have,
			      e->nparts);
			e->state = -1;
			drop_parts(s, e);
			return NULL;
		}
		parse_entry(s, e, name);
		if (e->state < 0)
			return NULL;
	}
	return e->archive;
}

size_t trec_archive_store_archives(const struct trec_archive_store *s, uint64_t file_id)
{
	const struct id_info *in = trec_u64map_get(&s->ids, file_id);
	return in ? in->count : 0;
}

size_t trec_archive_store_count(const struct trec_archive_store *s)
{
	return s->norder;
}

uint64_t trec_archive_store_file_id(const struct trec_archive_store *s, size_t k)
{
	return k < s->norder ? s->order[k] : 0;
}
