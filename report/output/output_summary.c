// SPDX-License-Identifier: MIT
/*
 * The default output: perf report --stdio at a glance. Functions are
 * (shared object, symbol) pairs as perf's default sort keys them, without
 * inlined frames; "self" counts samples whose leaf is in the function,
 * "total" (perf's children) samples with the function anywhere on the
 * stack, once per stack however deep the recursion.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct func {
	uint32_t dso, label;
	uint64_t self, total;
	size_t stamp; /* last aggregate counted in total, + 1 */
};

struct summary {
	struct func *funcs;
	size_t n, cap;
	struct trec_itab index;
};

struct func_key {
	const struct summary *s;
	uint32_t dso, label;
};

static bool func_eq(const void *ctx, uint32_t idx)
{
	const struct func_key *k = ctx;
	return k->s->funcs[idx].dso == k->dso && k->s->funcs[idx].label == k->label;
}

static struct func *func_get(struct summary *s, const struct rp_sym *sym)
{
	struct func_key k = { s, sym->dso, sym->label };
	uint64_t h = rp_hash_u64(((uint64_t)sym->dso << 32) | sym->label);
	uint32_t i = trec_itab_find(&s->index, h, func_eq, &k);
	if (i == TREC_ITAB_NONE) {
		RP_GROW(s->funcs, s->cap, s->n + 1);
		i = (uint32_t)s->n++;
		s->funcs[i] = (struct func){ .dso = sym->dso, .label = sym->label };
		rp_itab_insert(&s->index, h, i);
	}
	return &s->funcs[i];
}

struct u64_set {
	uint64_t *keys;
	size_t n, cap;
	struct trec_itab index;
};

struct u64_set_key {
	const struct u64_set *s;
	uint64_t key;
};

static bool u64_eq(const void *ctx, uint32_t idx)
{
	const struct u64_set_key *k = ctx;
	return k->s->keys[idx] == k->key;
}

/* 1 if key was new. */
static int u64_set_add(struct u64_set *s, uint64_t key)
{
	struct u64_set_key k = { s, key };
	if (trec_itab_find(&s->index, rp_hash_u64(key), u64_eq, &k) != TREC_ITAB_NONE)
		return 0;
	RP_GROW(s->keys, s->cap, s->n + 1);
	s->keys[s->n] = key;
	rp_itab_insert(&s->index, rp_hash_u64(key), (uint32_t)s->n++);
	return 1;
}

static void u64_set_free(struct u64_set *s)
{
	free(s->keys);
	trec_itab_free(&s->index);
}

static int cmp_self(const void *a, const void *b, void *ctx)
{
	const struct func *f = ctx, *x = &f[*(const uint32_t *)a], *y = &f[*(const uint32_t *)b];
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->total > y->total ? -1 : x->total < y->total;
}

static int cmp_total(const void *a, const void *b, void *ctx)
{
	const struct func *f = ctx, *x = &f[*(const uint32_t *)a], *y = &f[*(const uint32_t *)b];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->self > y->self ? -1 : x->self < y->self;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void print_table(FILE *out, const struct rp_report *r, const struct summary *s,
			uint32_t *order, bool by_self, uint64_t total)
{
	const struct rp_strtab *st = &r->m->strs;
	qsort_r(order, s->n, sizeof(*order), by_self ? cmp_self : cmp_total, s->funcs);
	fprintf(out, "# %s\n#\n#    Self    Total   Samples  Shared Object         Symbol\n",
		by_self ? "Top functions by self samples (leaf)" :
			  "Top functions by total samples (self + children)");
	size_t rows = s->n < r->o->top ? s->n : r->o->top;
	for (size_t i = 0; i < rows; i++) {
		const struct func *f = &s->funcs[order[i]];
		uint64_t v = by_self ? f->self : f->total;
		if (!v)
			break;
		const char *dso = rp_str(st, f->dso);
		const char *base = strrchr(dso, '/');
		fprintf(out, "  %6.2f%%  %6.2f%%  %8" PRIu64 "  %-20s  %s\n", pct(f->self, total),
			pct(f->total, total), v, base ? base + 1 : dso, rp_str(st, f->label));
	}
	fprintf(out, "\n");
}

int rp_output_summary(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	struct summary s = { 0 };
	uint32_t *syms = NULL;
	size_t capsyms = 0;
	uint64_t total = 0, cpu_ns = 0, threads = 0, procs = 0;

	for (size_t i = 0; i < m->naggs; i++) {
		const struct rp_agg *a = &m->aggs[i];
		if (!a->count)
			continue;
		total += a->count;
		cpu_ns += a->count * rp_period_ns(m, a->rec);
		uint32_t n = rp_agg_syms(r, a, &syms, &capsyms);
		for (uint32_t k = 0; k < n; k++) {
			struct func *f = func_get(&s, rp_sym_get(r->s, syms[k]));
			if (f->stamp != i + 1) {
				f->stamp = i + 1;
				f->total += a->count;
			}
			if (k == n - 1)
				f->self += a->count;
		}
	}
	/* distinct threads and processes among the kept samples */
	struct u64_set pids = { 0 }, tids = { 0 };
	for (size_t j = 0; j < m->naggs; j++) {
		if (!m->aggs[j].count)
			continue;
		procs += u64_set_add(&pids, (uint64_t)m->aggs[j].rec << 32 | m->aggs[j].pid);
		threads += u64_set_add(&tids, (uint64_t)m->aggs[j].rec << 32 | m->aggs[j].tid);
	}
	u64_set_free(&pids);
	u64_set_free(&tids);

	fprintf(out, "# %" PRIu64 " samples", total);
	if (cpu_ns)
		fprintf(out, " (%.3f s of CPU)", (double)cpu_ns / 1e9);
	fprintf(out, ", %" PRIu64 " process(es), %" PRIu64 " thread(s), %zu recording(s)\n", procs,
		threads, m->nrecs);
	for (size_t i = 0; i < m->nrecs; i++) {
		const struct rp_recording *rr = &m->recs[i];
		const char *cmd = rp_model_meta(m, (uint32_t)i, "cmdline");
		fprintf(out, "# %s: %" PRIu64 " samples read", rp_str(&m->strs, rr->path),
			rr->samples_read);
		if (rr->freq_hz)
			fprintf(out, " at %" PRIu64 " Hz", rr->freq_hz);
		if (rr->have_summary && rr->summary.lost)
			fprintf(out, ", %" PRIu64 " lost", rr->summary.lost);
		if (cmd)
			fprintf(out, ", command: %s", cmd);
		fprintf(out, "\n");
	}
	fprintf(out, "#\n");
	if (!total) {
		fprintf(out, "# no samples\n");
	} else {
		uint32_t *order = xcalloc(s.n, sizeof(*order));
		for (size_t i = 0; i < s.n; i++)
			order[i] = (uint32_t)i;
		print_table(out, r, &s, order, true, total);
		print_table(out, r, &s, order, false, total);
		free(order);
	}
	free(syms);
	free(s.funcs);
	trec_itab_free(&s.index);
	return 0;
}
