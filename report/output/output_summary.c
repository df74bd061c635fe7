// SPDX-License-Identifier: MIT
/*
 * The default output: perf report --stdio at a glance, the top functions
 * by self and by total samples (func_stats.h).
 */
#include "report/output/func_stats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
	const struct rp_func *f = ctx, *x = &f[*(const uint32_t *)a], *y = &f[*(const uint32_t *)b];
	if (x->self[0] != y->self[0])
		return x->self[0] > y->self[0] ? -1 : 1;
	return x->total[0] > y->total[0] ? -1 : x->total[0] < y->total[0];
}

static int cmp_total(const void *a, const void *b, void *ctx)
{
	const struct rp_func *f = ctx, *x = &f[*(const uint32_t *)a], *y = &f[*(const uint32_t *)b];
	if (x->total[0] != y->total[0])
		return x->total[0] > y->total[0] ? -1 : 1;
	return x->self[0] > y->self[0] ? -1 : x->self[0] < y->self[0];
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void print_table(FILE *out, const struct rp_report *r, const struct rp_funcs *s,
			uint32_t *order, bool by_self, bool by_time, uint64_t total)
{
	const struct rp_strtab *st = &r->m->strs;
	qsort_r(order, s->n, sizeof(*order), by_self ? cmp_self : cmp_total, s->funcs);
	bool ns = RP_EVENT_IN_NS(r->o) || by_time;
	const char *what = r->o->event == RP_EVENT_OFFCPU ? "time blocked"
			   : by_time ? "CPU time" : ns ? "wall time" : "samples";
	fprintf(out, "# Top functions by %s %s (%s)\n#\n#    Self    Total  %8s  Shared Object         Symbol\n",
		by_self ? "self" : "total", what, by_self ? "leaf" : "self + children",
		ns ? "ns" : "Samples");
	size_t rows = s->n < r->o->top ? s->n : r->o->top;
	for (size_t i = 0; i < rows; i++) {
		const struct rp_func *f = &s->funcs[order[i]];
		uint64_t v = by_self ? f->self[0] : f->total[0];
		if (!v)
			break;
		const char *dso = rp_str(st, f->dso);
		const char *base = strrchr(dso, '/');
		fprintf(out, "  %6.2f%%  %6.2f%%  %8" PRIu64 "  %-20s  %s\n", pct(f->self[0], total),
			pct(f->total[0], total), v, base ? base + 1 : dso, rp_str(st, f->label));
	}
	fprintf(out, "\n");
}

int rp_output_summary(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	struct rp_funcs s;
	uint64_t total = 0, cpu_ns = 0, threads = 0, procs = 0;

	/* Recordings of other rates: a sample is worth its period. */
	bool by_time = r->o->event == RP_EVENT_CPU_CLOCK && rp_mixed_periods(m);
	rp_funcs_collect(r, &s, 1, by_time);
	bool offcpu = r->o->event == RP_EVENT_OFFCPU;
	uint64_t waits = 0;
	for (size_t i = 0; i < m->naggs; i++) {
		const struct rp_agg *a = &m->aggs[i];
		total = rp_sat_add(total, a->count);
		waits = rp_sat_add(waits, a->hits);
		cpu_ns = rp_sat_add(cpu_ns, rp_sat_mul(a->count, rp_period_ns(m, a->rec)));
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

	if (offcpu)
		fprintf(out, "# offcpu-time: %.6f s blocked in %" PRIu64 " waits", (double)total / 1e9,
			waits);
	else if (r->o->event == RP_EVENT_WALL)
		fprintf(out, "# wall: %.6f s on and off the CPU in %" PRIu64 " samples and waits",
			(double)total / 1e9, waits);
	else
		fprintf(out, "# %" PRIu64 " samples", total);
	if (cpu_ns && !RP_EVENT_IN_NS(r->o))
		fprintf(out, " (%.3f s of CPU)", (double)cpu_ns / 1e9);
	fprintf(out, ", %" PRIu64 " process(es), %" PRIu64 " thread(s), %zu recording(s)\n", procs,
		threads, m->nrecs);
	for (size_t i = 0; i < m->nrecs; i++) {
		const struct rp_recording *rr = &m->recs[i];
		const char *cmd = rp_model_meta(m, (uint32_t)i, "cmdline");
		fprintf(out, "# %s: %" PRIu64 " samples read", rp_str(&m->strs, rr->path),
			rr->samples_read);
		if (rr->fixed_period)
			fprintf(out, ", one every %" PRIu64 " ns of CPU", rr->period_ns);
		else if (rr->freq_hz)
			fprintf(out, " at %" PRIu64 " Hz", rr->freq_hz);
		if (rr->have_summary && rr->summary.lost)
			fprintf(out, ", %" PRIu64 " lost", rr->summary.lost);
		uint64_t wl = rp_sat_add(rp_model_metric(m, (uint32_t)i, "OFFCPU_NO_SWITCH_IN"),
					 rp_model_metric(m, (uint32_t)i, "OFFCPU_PENDING_FULL"));
		if (rr->offcpu_read)
			fprintf(out, "; offcpu-time: %" PRIu64 " waits, %.6f s blocked",
				rr->offcpu_read, (double)rr->offcpu_ns_read / 1e9);
		if (wl)
			fprintf(out, ", %" PRIu64 " waits lost", wl);
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
		if (by_time)
			fprintf(out, "# the recordings were sampled at different rates: "
				"functions weighed in CPU time (samples x period)\n#\n");
		print_table(out, r, &s, order, true, by_time, s.all[0]);
		print_table(out, r, &s, order, false, by_time, s.all[0]);
		free(order);
	}
	rp_funcs_free(&s);
	return 0;
}
