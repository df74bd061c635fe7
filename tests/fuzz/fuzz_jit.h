/* SPDX-License-Identifier: MIT */
/*
 * Shared by the JIT parser fuzz targets: what must hold of every table a
 * parser builds from any input, and that every such table encodes as
 * JITSYMS records and decodes back whole. A broken rule aborts.
 */
#ifndef TREC_FUZZ_JIT_H
#define TREC_FUZZ_JIT_H

#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "record/jit/jit_table.h"

/* Small limits, so that fuzzing reaches them. */
static const struct trec_jit_limits fuzz_jit_limits = {
	.max_file_bytes = 48 << 10, .max_entries = 64, .max_lines = 256, .max_name = 64,
};

/* Up to 8 pcs from the input's first bytes, sorted: a filter to apply. */
static inline size_t fuzz_jit_pcs(const uint8_t *d, size_t n, uint64_t *pcs)
{
	size_t k = n / 8 < 8 ? n / 8 : 8;

	for (size_t i = 0; i < k; i++) {
		memcpy(&pcs[i], d + 8 * i, 8);
		for (size_t j = i; j > 0 && pcs[j - 1] > pcs[j]; j--) {
			uint64_t x = pcs[j];

			pcs[j] = pcs[j - 1];
			pcs[j - 1] = x;
		}
	}
	return k;
}

static inline void fuzz_jit_check_table(const struct trec_jit_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct trec_jit_entry *e = &t->entries[i];

		if (!e->size || e->size > UINT64_MAX - e->start || !e->name ||
		    strlen(e->name) > t->lim.max_name || (e->end_ns && e->end_ns < e->load_ns) ||
		    e->first_line > t->nlines || e->num_lines > t->nlines - e->first_line)
			abort();
	}
	for (uint32_t i = 0; i < t->nlines; i++)
		if (t->lines[i].file >= t->nfiles)
			abort();
	if (t->bad && !t->why[0])
		abort(); /* a refusal must say why */
}

struct fuzz_jit_rt {
	uint32_t entries;
	struct trec_buf b;
	struct trec_scratch s;
};

/* Each emitted record must encode, decode, and match what was given. */
static inline int fuzz_jit_roundtrip(void *ctx, const struct trec_jitsyms *j)
{
	struct fuzz_jit_rt *rt = ctx;
	struct trec_chunk_tables tabs = { 0 };
	struct trec_record rec;

	rt->b.len = 0;
	if (trec_enc_jitsyms(&rt->b, j))
		abort();
	if (trec_dec_record(TREC_REC_JITSYMS, rt->b.data, rt->b.data, (uint32_t)rt->b.len, &tabs,
			    &rt->s, &rec) != 1)
		abort();
	const struct trec_jitsyms *g = &rec.u.jitsyms;
	if (g->num_entries != j->num_entries || g->num_lines != j->num_lines ||
	    g->num_files != j->num_files || g->flags != j->flags)
		abort();
	for (uint32_t i = 0; i < j->num_entries; i++)
		if (g->entries[i].start != j->entries[i].start ||
		    g->entries[i].end_ns != j->entries[i].end_ns ||
		    strcmp(g->entries[i].name, j->entries[i].name))
			abort();
	rt->entries += j->num_entries;
	trec_buf_free(&tabs.stacks);
	trec_buf_free(&tabs.threads);
	return 0;
}

static inline void fuzz_jit_emit(const struct trec_jit_table *t)
{
	struct fuzz_jit_rt rt = { 0 };
	struct trec_jitsyms hdr = { .pid = 1, .source = TREC_JIT_JITDUMP, .path = "p" };

	fuzz_jit_check_table(t);
	if (trec_jit_table_emit(t, &hdr, fuzz_jit_roundtrip, &rt) || rt.entries != t->n)
		abort();
	trec_buf_free(&rt.b);
	trec_scratch_free(&rt.s);
}

#endif /* TREC_FUZZ_JIT_H */
