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
#include "report/archive/archive_store.h"
#include "report/util.h"
#include "trec_format.h"

struct part {
	uint8_t *data;
	size_t len;
};

struct entry {
	uint64_t file_id;
	uint32_t nparts, have;
	struct part *parts;
	struct trec_archive *archive;
	int state; /* 0 collecting, 1 parsed, -1 unusable (warned) */
};

struct trec_archive_store {
	struct entry *v;
	size_t n, cap;
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

static void drop_parts(struct entry *e)
{
	for (uint32_t i = 0; i < e->nparts; i++)
		free(e->parts[i].data);
	free(e->parts);
	e->parts = NULL;
	e->nparts = e->have = 0;
}

void trec_archive_store_free(struct trec_archive_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		drop_parts(&s->v[i]);
		trec_archive_free(s->v[i].archive);
	}
	free(s->v);
	free(s);
}

/* The k-th entry of file_id (in the order they began). */
static struct entry *find_nth(const struct trec_archive_store *s, uint64_t file_id, size_t k)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].file_id == file_id && !k--)
			return &s->v[i];
	return NULL;
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
	*another = false;
	for (size_t i = s->n; i-- > 0;) {
		struct entry *e = &s->v[i];
		if (e->file_id != file_id)
			continue;
		if ((e->state || complete(e)) && part == 0)
			*another = true;
		return e;
	}
	return NULL;
}

/* A just completed archive identical to an earlier one of its file adds
 * nothing: drop it (merged recordings of one binary at level full). */
static void drop_if_repeated(struct trec_archive_store *s, struct entry *e)
{
	for (struct entry *o = s->v; o < e; o++) {
		if (o->file_id != e->file_id || o->state || !complete(o) || o->nparts != e->nparts)
			continue;
		uint32_t i = 0;
		while (i < e->nparts && o->parts[i].len == e->parts[i].len &&
		       !memcmp(o->parts[i].data, e->parts[i].data, e->parts[i].len))
			i++;
		if (i == e->nparts) {
			drop_parts(e);
			s->n--; /* e is the last entry */
			return;
		}
	}
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
	bool another;
	struct entry *e = collecting(s, b->file_id, part, &another);
	if (another)
		e = NULL;
	else if (e && (e->state || complete(e)))
		return 0; /* a repeated part of a complete archive */
	if (e && e->nparts != nparts) {
		warnf(s, "file id %#" PRIx64 ": SYMTAB parts of two archives mixed; "
		      "keeping the later one", b->file_id);
		drop_parts(e);
	}
	if (!e) {
		RP_GROW(s->v, s->cap, s->n + 1);
		e = &s->v[s->n++];
		memset(e, 0, sizeof(*e));
		e->file_id = b->file_id;
	}
	if (!e->parts) {
		e->parts = xcalloc(nparts, sizeof(*e->parts));
		e->nparts = nparts;
	}
	struct part *p = &e->parts[part];
	if (p->data || !b->len)
		return 0;
	p->data = xmalloc(b->len);
	memcpy(p->data, b->data, b->len);
	p->len = b->len;
	e->have++;
	if (complete(e) && e == &s->v[s->n - 1])
		drop_if_repeated(s, e);
	return 0;
}

static void parse_entry(struct trec_archive_store *s, struct entry *e, const char *name)
{
	size_t total = 0;
	for (uint32_t i = 0; i < e->nparts; i++)
		total += e->parts[i].len;
	uint8_t *joined = e->nparts == 1 ? e->parts[0].data : xmalloc(total);
	if (e->nparts > 1)
		for (uint32_t i = 0, off = 0; i < e->nparts; off += e->parts[i].len, i++)
			memcpy(joined + off, e->parts[i].data, e->parts[i].len);
	char err[256];
	int rc = trec_archive_parse(joined, total, &e->archive, err, sizeof(err));
	if (joined != e->parts[0].data)
		free(joined);
	if (rc == -ENOMEM)
		rp_out_of_memory(total);
	if (rc)
		warnf(s, "%s: embedded symbols unusable: %s", name, err);
	drop_parts(e);
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
			drop_parts(e);
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
	size_t k = 0;
	while (find_nth(s, file_id, k))
		k++;
	return k;
}

/* Whether entry i is the first of its file id. */
static bool first_of_id(const struct trec_archive_store *s, size_t i)
{
	return find_nth(s, s->v[i].file_id, 0) == &s->v[i];
}

size_t trec_archive_store_count(const struct trec_archive_store *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += first_of_id(s, i);
	return n;
}

uint64_t trec_archive_store_file_id(const struct trec_archive_store *s, size_t k)
{
	for (size_t i = 0; i < s->n; i++)
		if (first_of_id(s, i) && !k--)
			return s->v[i].file_id;
	return 0;
}
