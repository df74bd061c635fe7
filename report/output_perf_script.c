// SPDX-License-Identifier: MIT
/*
 * `perf script` text with callchains, as perf 6.1 prints it with
 * -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso:
 *
 *   busy  4948/4948  [001]   502.020926:    1001001 cpu-clock: 
 *   \t            1289 cmp_ints+0x19 (/tmp/busy)
 *
 * Leaf first, a blank line after each sample, in time order. Addresses of
 * file frames are ELF addresses like perf's map-relative ones; inlined
 * functions get their own "name (inlined)" line as with perf --inline.
 * A record of weight w is printed once with period w * sample period.
 */
#include "output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void print_frame(FILE *out, const struct rp_report *r, const struct rp_sym *sym)
{
	const struct rp_strtab *st = &r->m->strs;
	const char *dso = rp_str(st, sym->dso);
	if (!sym->resolved) {
		fprintf(out, "\t%16" PRIx64 " %s (%s)\n", sym->addr, rp_str(st, sym->name), dso);
		return;
	}
	const struct rp_line *l = rp_sym_lines(r->s, sym);
	for (uint32_t i = 0; i + 1 < sym->nlines; i++)
		fprintf(out, "\t%16" PRIx64 " %s (inlined)\n", sym->addr, rp_str(st, l[i].func));
	if (sym->kind == RP_SYM_ERROR || sym->kind == RP_SYM_PYTHON)
		fprintf(out, "\t%16" PRIx64 " %s (%s)\n", (uint64_t)0, rp_str(st, sym->name), dso);
	else
		fprintf(out, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", sym->addr,
			rp_str(st, sym->name), sym->sym_off, dso);
}

/* By time, ties in file order (qsort is not stable). */
static int cmp_event(const void *a, const void *b, void *ctx)
{
	const struct rp_event *ev = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (ev[i].time_ns != ev[j].time_ns)
		return ev[i].time_ns < ev[j].time_ns ? -1 : 1;
	return (i > j) - (i < j);
}

int rp_output_perf_script(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	uint32_t *syms = NULL;
	size_t capsyms = 0;
	uint32_t *order = xmalloc((m->nevents ? m->nevents : 1) * sizeof(*order));
	for (size_t i = 0; i < m->nevents; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, m->nevents, sizeof(*order), cmp_event, m->events);

	for (size_t i = 0; i < m->nevents; i++) {
		const struct rp_event *e = &m->events[order[i]];
		const struct rp_agg *a = &m->aggs[e->agg];
		char comm[32];
		rp_comm_name(m, a, comm, sizeof(comm));
		uint64_t p = rp_period_ns(m, a->rec), period = e->weight;
		if (p)
			period = e->weight > UINT64_MAX / p ? UINT64_MAX : e->weight * p;
		char ts[32];
		snprintf(ts, sizeof(ts), "%" PRIu64 ".%06" PRIu64, (uint64_t)(e->time_ns / 1000000000u),
			 (uint64_t)(e->time_ns % 1000000000u / 1000u));
		fprintf(out, "%s %5u/%-5u [%03u] %12s: %10" PRIu64 " cpu-clock: \n", comm, a->pid,
			a->tid, e->cpu, ts, period);
		uint32_t n = rp_agg_syms(r, a, &syms, &capsyms);
		for (uint32_t k = n; k-- > 0;) /* leaf first */
			print_frame(out, r, rp_sym_get(r->s, syms[k]));
		fputc('\n', out);
	}
	free(order);
	free(syms);
	return 0;
}
