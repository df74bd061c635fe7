// SPDX-License-Identifier: MIT
/* Helpers every output format shares. */
#include "report/output/output.h"

#include <string.h>

void rp_comm_name(const struct rp_model *m, const struct rp_agg *a, char *buf, size_t len)
{
	const char *c = rp_str(&m->strs, a->comm);
	if (c[0])
		snprintf(buf, len, "%s", c);
	else
		snprintf(buf, len, ":%u", a->pid);
}

uint32_t rp_agg_syms(const struct rp_report *r, const struct rp_agg *a, uint32_t **buf,
		     size_t *cap)
{
	const struct rp_stack *st = &r->m->stacks[a->stack];
	RP_GROW(*buf, *cap, (size_t)st->nkernel + st->nuser + 1);
	return rp_symbolize_stack(r->s, a, *buf);
}

uint32_t rp_interp_run_after(const struct rp_report *r, const uint32_t *syms, uint32_t k,
			     uint32_t n)
{
	const struct rp_sym *s = rp_sym_get(r->s, syms[k]);
	uint32_t run = 0;

	if (!s->resolved || s->kind != RP_SYM_NATIVE || s->nlines < 2)
		return 0;
	while (k + run + 1 < n && rp_sym_get(r->s, syms[k + run + 1])->kind == RP_SYM_INTERP)
		run++;
	return run;
}

uint64_t rp_period_ns(const struct rp_model *m, uint32_t rec)
{
	return m->recs[rec].period_ns;
}

bool rp_mixed_periods(const struct rp_model *m)
{
	uint64_t first = 0;

	for (size_t i = 0; i < m->nrecs; i++) {
		if (!m->recs[i].samples_kept)
			continue;
		if (!first)
			first = m->recs[i].period_ns ? m->recs[i].period_ns : 1;
		else if ((m->recs[i].period_ns ? m->recs[i].period_ns : 1) != first)
			return true;
	}
	return false;
}

const char *rp_weight_unit(const struct rp_report *r)
{
	return RP_EVENT_IN_NS(r->o) ? "ns" : "samples";
}

const char *rp_event_name(const struct rp_options *o)
{
	return o->event == RP_EVENT_OFFCPU ? "offcpu-time" : o->event == RP_EVENT_WALL ? "wall"
										  : "cpu-clock";
}
