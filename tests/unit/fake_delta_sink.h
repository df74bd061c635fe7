/* SPDX-License-Identifier: MIT */
/*
 * A delta-store sink backed by plain arrays, and the lookup rule of
 * bpf/trec_types.h implemented over it, written from the spec (not from
 * the BPF code) so tests can check the store against the rule.
 * Header-only: each unit test is one translation unit.
 */
#ifndef TREC_FAKE_DELTA_SINK_H
#define TREC_FAKE_DELTA_SINK_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/unwind/unwind_tables.h"

#define FAKE_PAGE_SLOTS (1u << 17) /* > 2 * TREC_MAX_DELTA_PAGES */

struct fake_page {
	struct trec_delta_page_key k;
	struct trec_delta_page_value v;
	int used; /* 0 empty, 1 live, -1 deleted */
};

struct fake_sink {
	struct trec_unwind_info infos[TREC_MAX_UNWIND_INFOS];
	struct trec_stack_delta *deltas; /* [max_deltas] */
	uint32_t max_deltas;
	struct fake_page *pages; /* [FAKE_PAGE_SLOTS] */
	uint32_t live_pages;
	int fail_set_page_after; /* >= 0: set_page fails after this many calls */
	int set_page_calls;
};

static inline size_t fake_page_hash(const struct trec_delta_page_key *k)
{
	uint64_t h = k->file_id * 0x9e3779b97f4a7c15ULL ^ (k->page >> 16) * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29)) & (FAKE_PAGE_SLOTS - 1);
}

static inline struct fake_page *fake_page_find(struct fake_sink *f, const struct trec_delta_page_key *k,
					int for_insert)
{
	for (size_t i = fake_page_hash(k);; i = (i + 1) & (FAKE_PAGE_SLOTS - 1)) {
		struct fake_page *p = &f->pages[i];
		if (p->used == 1 && p->k.file_id == k->file_id && p->k.page == k->page)
			return p;
		if (p->used == 0)
			return for_insert ? p : NULL;
	}
}

static inline int fake_set_unwind_info(void *ctx, uint32_t idx, const struct trec_unwind_info *ui)
{
	struct fake_sink *f = ctx;
	if (idx >= TREC_MAX_UNWIND_INFOS)
		return -E2BIG;
	f->infos[idx] = *ui;
	return 0;
}

static inline int fake_set_deltas(void *ctx, uint32_t first, const struct trec_stack_delta *d, uint32_t n)
{
	struct fake_sink *f = ctx;
	if ((uint64_t)first + n > f->max_deltas)
		return -E2BIG;
	memcpy(&f->deltas[first], d, n * sizeof(*d));
	return 0;
}

static inline int fake_set_page(void *ctx, const struct trec_delta_page_key *k,
			 const struct trec_delta_page_value *v)
{
	struct fake_sink *f = ctx;
	if (f->fail_set_page_after >= 0 && f->set_page_calls++ >= f->fail_set_page_after)
		return -E2BIG;
	struct fake_page *p = fake_page_find(f, k, 1);
	if (p->used != 1)
		f->live_pages++;
	*p = (struct fake_page){ *k, *v, 1 };
	return 0;
}

static inline int fake_delete_page(void *ctx, const struct trec_delta_page_key *k)
{
	struct fake_sink *f = ctx;
	struct fake_page *p = fake_page_find(f, k, 0);
	if (!p)
		return -ENOENT;
	p->used = -1; /* tombstone keeps probe chains intact */
	f->live_pages--;
	return 0;
}

static const struct trec_delta_sink_ops fake_sink_ops = {
	.set_unwind_info = fake_set_unwind_info,
	.set_deltas = fake_set_deltas,
	.set_page = fake_set_page,
	.delete_page = fake_delete_page,
};

static inline struct fake_sink *fake_sink_new(uint32_t max_deltas)
{
	struct fake_sink *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->max_deltas = max_deltas;
	f->deltas = calloc(max_deltas, sizeof(*f->deltas));
	f->pages = calloc(FAKE_PAGE_SLOTS, sizeof(*f->pages));
	f->fail_set_page_after = -1;
	if (!f->deltas || !f->pages) {
		free(f->deltas);
		free(f->pages);
		free(f);
		return NULL;
	}
	return f;
}

static inline void fake_sink_free(struct fake_sink *f)
{
	if (!f)
		return;
	free(f->deltas);
	free(f->pages);
	free(f);
}

/* A resolved rule, comparable across the store and the source entries. */
struct resolved_rule {
	int no_page; /* the lookup found no page entry */
	uint16_t command;
	struct trec_unwind_info info;
};

static inline int resolved_eq(const struct resolved_rule *a, const struct resolved_rule *b)
{
	if (a->no_page || b->no_page)
		return a->no_page == b->no_page;
	if (a->command != b->command)
		return 0;
	return a->command || (a->info.cfa_reg == b->info.cfa_reg &&
			      a->info.fp_rule == b->info.fp_rule && a->info.flags == b->info.flags &&
			      a->info.cfa_param == b->info.cfa_param &&
			      a->info.fp_param == b->info.fp_param);
}

/* The lookup of bpf/trec_types.h, over the fake maps. */
static inline struct resolved_rule fake_lookup(struct fake_sink *f, uint64_t file_id, uint64_t addr)
{
	struct resolved_rule r = { 0 };
	struct trec_delta_page_key k = { file_id, addr & ~TREC_DELTA_PAGE_MASK };
	struct fake_page *p = fake_page_find(f, &k, 0);
	if (!p) {
		r.no_page = 1;
		return r;
	}
	uint16_t low = (uint16_t)(addr & TREC_DELTA_PAGE_MASK);
	uint32_t lo = p->v.first_delta, hi = p->v.first_delta + p->v.num_deltas;
	/* Last index in [lo, hi) with addr_low <= low, else first - 1. */
	uint32_t idx = p->v.first_delta - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->deltas[mid].addr_low <= low) {
			idx = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	uint16_t ui = f->deltas[idx].unwind_info;
	if (ui & TREC_UNWIND_COMMAND)
		r.command = ui;
	else
		r.info = f->infos[ui];
	return r;
}

/* The rule the source entries give addr: the last entry at or before it. */
static inline struct resolved_rule source_rule(const struct trec_file_deltas *d, uint64_t addr)
{
	struct resolved_rule r = { 0 };
	size_t lo = 0, hi = d->num;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->entries[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		r.command = TREC_UNWIND_COMMAND | TREC_CMD_INVALID;
		return r;
	}
	const struct trec_delta_entry *e = &d->entries[lo - 1];
	r.command = e->command;
	if (!e->command)
		r.info = e->info;
	return r;
}

#endif /* TREC_FAKE_DELTA_SINK_H */
