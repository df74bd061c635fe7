// SPDX-License-Identifier: MIT
/* Samples per function (see func_stats.h). */
#include "report/output/func_stats.h"

#include <stdlib.h>
#include <string.h>

struct func_key {
	const struct rp_funcs *s;
	uint32_t dso, label;
};

static bool func_eq(const void *ctx, uint32_t idx)
{
	const struct func_key *k = ctx;
	return k->s->funcs[idx].dso == k->dso && k->s->funcs[idx].label == k->label;
}

/* An interpreter frame's label holds its line ("run (app.py:12)"): a
 * function is its name in its file, whatever the line. */
static uint32_t func_label(const struct rp_report *r, const struct rp_sym *sym)
{
	if (sym->kind == RP_SYM_INTERP && sym->resolved)
		return rp_sym_lines(r->s, sym)[0].func;
	return sym->label;
}

static struct rp_func *func_get(struct rp_funcs *s, uint32_t dso, uint32_t label)
{
	struct func_key k = { s, dso, label };
	uint64_t h = rp_hash_u64(((uint64_t)dso << 32) | label);
	uint32_t i = trec_itab_find(&s->index, h, func_eq, &k);
	if (i == TREC_ITAB_NONE) {
		RP_GROW(s->funcs, s->cap, s->n + 1);
		i = (uint32_t)s->n++;
		s->funcs[i] = (struct rp_func){ .dso = dso, .label = label };
		rp_itab_insert(&s->index, h, i);
	}
	return &s->funcs[i];
}

static void add(uint64_t *v, uint64_t w)
{
	*v = rp_sat_add(*v, w);
}

void rp_funcs_collect(const struct rp_report *r, struct rp_funcs *s, unsigned ncols,
		      bool by_time)
{
	uint32_t *syms = NULL;
	size_t capsyms = 0;
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < r->m->naggs; i++) {
		const struct rp_agg *a = &r->m->aggs[i];
		if (!a->count)
			continue;
		unsigned col = ncols == 2 && a->rec < 2 ? a->rec : 0;
		uint64_t w = by_time ? rp_sat_mul(a->count, rp_period_ns(r->m, a->rec)) : a->count;
		add(&s->all[col], w);
		uint32_t n = rp_agg_syms(r, a, &syms, &capsyms);
		for (uint32_t k = 0; k < n; k++) {
			const struct rp_sym *sym = rp_sym_get(r->s, syms[k]);
			struct rp_func *f = func_get(s, sym->dso, func_label(r, sym));
			if (f->stamp != i + 1) {
				f->stamp = i + 1;
				add(&f->total[col], w);
			}
			if (k == n - 1)
				add(&f->self[col], w);
		}
	}
	free(syms);
}

void rp_funcs_free(struct rp_funcs *s)
{
	free(s->funcs);
	trec_itab_free(&s->index);
	memset(s, 0, sizeof(*s));
}
