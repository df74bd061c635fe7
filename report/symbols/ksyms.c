// SPDX-License-Identifier: MIT
/* Kernel symbol lookup by binary search over a sorted KSYMS snapshot. */
#include "report/symbols/ksyms.h"
#include "upper_bound.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* nm letters of code: kallsyms lists data too, which must not name a pc. */
static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W' || t == 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct rp_ksym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* stable for duplicates */
}

void rp_ksyms_set(struct rp_model *m, uint32_t rec, const struct trec_ksyms *k)
{
	struct rp_recording *r = &m->recs[rec];
	if (r->ksyms && k->time_ns < r->ksyms_time_ns)
		return; /* keep the newest snapshot */
	free(r->ksyms);
	r->ksyms = xcalloc(k->num_syms, sizeof(*r->ksyms));
	size_t n = 0;
	for (uint32_t i = 0; i < k->num_syms; i++) {
		const struct trec_ksym *s = &k->syms[i];
		if (!s->addr || !is_text_type(s->type) || !s->name || !s->name[0])
			continue;
		char name[256];
		rp_sanitize(name, sizeof(name), s->name);
		r->ksyms[n].addr = s->addr;
		r->ksyms[n].name = rp_strtab_intern(&m->strs, name);
		if (s->module && s->module[0]) {
			char mod[128];
			char br[132];
			rp_sanitize(mod, sizeof(mod), s->module);
			snprintf(br, sizeof(br), "[%s]", mod);
			r->ksyms[n].module = rp_strtab_intern(&m->strs, br);
		} else {
			r->ksyms[n].module = 0;
		}
		n++;
	}
	qsort(r->ksyms, n, sizeof(*r->ksyms), cmp_ksym);
	/* several names at one address (aliases): keep the first */
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (!w || r->ksyms[i].addr != r->ksyms[w - 1].addr)
			r->ksyms[w++] = r->ksyms[i];
	r->nksyms = w;
	r->ksyms_time_ns = k->time_ns;
}

const struct rp_ksym *rp_ksyms_lookup(const struct rp_recording *r, uint64_t addr)
{
	size_t lo = TREC_UPPER_BOUND(r->ksyms, r->nksyms, addr, addr);
	if (!lo)
		return NULL;
	const struct rp_ksym *s = &r->ksyms[lo - 1];
	if (lo == r->nksyms && addr - s->addr >= RP_KSYM_LAST_SPAN)
		return NULL;
	return s;
}
