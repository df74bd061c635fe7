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
 * A record of weight w is printed once with period w * sample period;
 * an off-CPU wait (--event offcpu-time) as offcpu-time with its ns.
 * Spaces in a dso path are written as '_': speedscope (and other readers
 * of this text) take the dso as one token and drop frames whose dso has a
 * space.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* " (dso)\n", spaces in dso as '_' (see above). */
static void add_dso(struct rp_buf *b, const char *dso)
{
	rp_buf_add(b, " (", 2);
	for (const char *p = dso; *p; p++)
		rp_buf_add(b, *p == ' ' ? "_" : p, 1);
	rp_buf_add(b, ")\n", 2);
}

/* The text lines of one symbol, formatted once: frames repeat millions of times. */
static void format_frame(struct rp_buf *b, const struct rp_report *r, const struct rp_sym *sym,
			 enum rp_lines part)
{
	const struct rp_strtab *st = &r->m->strs;
	const char *dso = rp_str(st, sym->dso);
	if (!sym->resolved) {
		rp_buf_printf(b, "\t%16" PRIx64 " %s", sym->addr, rp_str(st, sym->name));
		add_dso(b, dso);
		return;
	}
	const struct rp_line *l = rp_sym_lines(r->s, sym);
	for (uint32_t i = 0; i + 1 < sym->nlines && part != RP_LINES_OWN; i++)
		rp_buf_printf(b, "\t%16" PRIx64 " %s (inlined)\n", sym->addr, rp_str(st, l[i].func));
	if (part == RP_LINES_INLINED)
		return;
	if (sym->kind == RP_SYM_ERROR || sym->kind == RP_SYM_INTERP)
		rp_buf_printf(b, "\t%16" PRIx64 " %s", (uint64_t)0, rp_str(st, sym->name));
	else
		rp_buf_printf(b, "\t%16" PRIx64 " %s+0x%" PRIx64, sym->addr, rp_str(st, sym->name),
			      sym->sym_off);
	add_dso(b, dso);
}

struct frame_texts {
	struct rp_strtab texts;
	uint32_t *of_sym; /* sym id -> text id, 0 = not formatted yet */
	uint32_t *len;    /* sym id -> text length */
	size_t cap, caplen;
	struct rp_buf b;
};

static void put_frame(FILE *out, struct frame_texts *ft, const struct rp_report *r,
		      uint32_t symid, enum rp_lines part)
{
	size_t i = (size_t)symid * RP_LINES_KINDS + (size_t)part;

	if (i >= ft->cap) {
		size_t old = ft->cap;
		RP_GROW(ft->of_sym, ft->cap, i + 1);
		RP_GROW(ft->len, ft->caplen, ft->cap);
		memset(ft->of_sym + old, 0, (ft->cap - old) * sizeof(*ft->of_sym));
	}
	if (!ft->of_sym[i]) {
		rp_buf_reset(&ft->b);
		format_frame(&ft->b, r, rp_sym_get(r->s, symid), part);
		ft->of_sym[i] = rp_strtab_intern_n(&ft->texts, ft->b.p, ft->b.len);
		ft->len[i] = (uint32_t)ft->b.len;
	}
	fwrite(rp_str(&ft->texts, ft->of_sym[i]), 1, ft->len[i], out);
}

/* Each aggregate's symbol ids, resolved once for all of its samples. */
struct agg_cache {
	uint32_t *first, *n; /* per aggregate; first UINT32_MAX = not yet */
	uint32_t *pool, *tmp;
	size_t npool, cappool, captmp;
};

static const uint32_t *agg_syms_cached(struct agg_cache *c, const struct rp_report *r,
				       uint32_t agg, uint32_t *n)
{
	if (c->first[agg] != UINT32_MAX) {
		*n = c->n[agg];
		return c->pool + c->first[agg];
	}
	*n = rp_agg_syms(r, &r->m->aggs[agg], &c->tmp, &c->captmp);
	if (c->npool + *n >= UINT32_MAX) /* pool full: resolve every time */
		return c->tmp;
	RP_GROW(c->pool, c->cappool, c->npool + *n);
	memcpy(c->pool + c->npool, c->tmp, *n * sizeof(*c->tmp));
	c->first[agg] = (uint32_t)c->npool;
	c->n[agg] = *n;
	c->npool += *n;
	return c->pool + c->first[agg];
}

int rp_output_perf_script(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	struct frame_texts ft = { 0 };
	rp_strtab_init(&ft.texts);
	struct agg_cache ac = { 0 };
	ac.first = xmalloc((m->naggs ? m->naggs : 1) * sizeof(*ac.first));
	ac.n = xmalloc((m->naggs ? m->naggs : 1) * sizeof(*ac.n));
	memset(ac.first, 0xff, (m->naggs ? m->naggs : 1) * sizeof(*ac.first));
	uint32_t *order = rp_model_events_by_time(m);

	for (size_t i = 0; i < m->nevents; i++) {
		const struct rp_event *e = &m->events[order[i]];
		const struct rp_agg *a = &m->aggs[e->agg];
		char comm[32];
		rp_comm_name(m, a, comm, sizeof(comm));
		uint64_t p = rp_period_ns(m, a->rec), period = e->weight;
		/* Off-CPU: the weight is the time blocked, perf's offcpu-time period. */
		if (p && r->o->event != RP_EVENT_OFFCPU)
			period = rp_sat_mul(e->weight, p);
		char ts[32];
		snprintf(ts, sizeof(ts), "%" PRIu64 ".%06" PRIu64, (uint64_t)(e->time_ns / 1000000000u),
			 (uint64_t)(e->time_ns % 1000000000u / 1000u));
		fprintf(out, "%s %5u/%-5u [%03u] %12s: %10" PRIu64 " %s: \n", comm, a->pid,
			a->tid, e->cpu, ts, period, rp_event_name(r->o));
		uint32_t nas;
		const uint32_t *as = agg_syms_cached(&ac, r, e->agg, &nas);
		for (uint32_t k = nas; k-- > 0;) { /* leaf first */
			/* a run of interpreter frames and the frame below it:
			 * the loop's inlined functions, its interpreter frames,
			 * then the loop's own function */
			uint32_t s = k;
			while (s > 0 && rp_sym_get(r->s, as[s])->kind == RP_SYM_INTERP)
				s--;
			bool split = s < k && rp_interp_run_after(r, as, s, nas);
			if (split)
				put_frame(out, &ft, r, as[s], RP_LINES_INLINED);
			for (; k > s; k--)
				put_frame(out, &ft, r, as[k], RP_LINES_ALL);
			put_frame(out, &ft, r, as[s], split ? RP_LINES_OWN : RP_LINES_ALL);
		}
		fputc('\n', out);
	}
	free(order);
	free(ft.of_sym);
	free(ft.len);
	free(ac.first);
	free(ac.n);
	free(ac.pool);
	free(ac.tmp);
	rp_buf_free(&ft.b);
	rp_strtab_free(&ft.texts);
	return 0;
}
