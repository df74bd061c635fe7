// SPDX-License-Identifier: MIT
/*
 * Folded stacks for flamegraph.pl: "comm;root;...;leaf count", one line
 * per distinct stack, sorted. Frame names follow stackcollapse-perf.pl so
 * that `treport --perf-script | stackcollapse-perf.pl` and `treport
 * --folded` agree (frame_names.h): an unresolved frame is [dso basename],
 * ';' becomes ':' and quotes are dropped; inlined functions are frames of
 * their own. Off-CPU stacks (--event offcpu-time) count microseconds
 * blocked.
 */
#include "report/output/folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/frame_names.h"

static void add_name(struct rp_buf *b, const char *name, bool root)
{
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\'')
			continue;
		/* the root (comm) has spaces made '_' as stackcollapse does */
		char c = *p == ';' ? ':' : root && *p == ' ' ? '_' : *p;
		rp_buf_add(b, &c, 1);
	}
}

void rp_folded_collect(const struct rp_report *r, struct rp_folded *f, unsigned ncols)
{
	struct rp_namer *nm = rp_namer_new(r);
	struct rp_buf b = { 0 };
	memset(f, 0, sizeof(*f));
	f->ncols = ncols ? ncols : 1;
	rp_strtab_init(&f->lines);

	for (size_t i = 0; i < r->m->naggs; i++) {
		const struct rp_agg *a = &r->m->aggs[i];
		if (!a->count)
			continue;
		const struct rp_nframe *fr;
		uint32_t n = rp_namer_stack(nm, a, &fr);
		rp_buf_reset(&b);
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				rp_buf_add(&b, ";", 1);
			add_name(&b, rp_str(&r->m->strs, fr[k].name), k == 0);
		}
		size_t before = f->lines.count;
		uint32_t id = rp_strtab_intern_n(&f->lines, b.p, b.len);
		RP_GROW(f->counts, f->cap, ((size_t)id + 1) * f->ncols);
		if (f->lines.count > before)
			memset(f->counts + (size_t)id * f->ncols, 0, f->ncols * sizeof(*f->counts));
		unsigned col = f->ncols > 1 && a->rec < f->ncols ? a->rec : 0;
		uint64_t *c = &f->counts[(size_t)id * f->ncols + col];
		*c = rp_sat_add(*c, a->count);
	}
	rp_buf_free(&b);
	rp_namer_free(nm);
}

static int cmp_line(const void *a, const void *b, void *tab)
{
	return strcmp(rp_str(tab, *(const uint32_t *)a), rp_str(tab, *(const uint32_t *)b));
}

uint32_t *rp_folded_sorted(const struct rp_folded *f, size_t *n)
{
	*n = f->lines.count - 1;
	uint32_t *order = xcalloc(*n ? *n : 1, sizeof(*order));
	for (size_t i = 0; i < *n; i++)
		order[i] = (uint32_t)(i + 1);
	qsort_r(order, *n, sizeof(*order), cmp_line, (void *)&f->lines);
	return order;
}

void rp_folded_free(struct rp_folded *f)
{
	free(f->counts);
	rp_strtab_free(&f->lines);
}

int rp_output_folded(const struct rp_report *r, FILE *out)
{
	struct rp_folded f;
	size_t n;
	rp_folded_collect(r, &f, 1);
	uint32_t *order = rp_folded_sorted(&f, &n);
	/* Off-CPU and wall weights are ns; FlameGraph's off-CPU graphs count
	 * microseconds. */
	bool us = RP_EVENT_IN_NS(r->o);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = f.counts[order[i]];
		fprintf(out, "%s %" PRIu64 "\n", rp_str(&f.lines, order[i]),
			us ? v / 1000 + (v % 1000 >= 500) : v);
	}
	free(order);
	rp_folded_free(&f);
	return 0;
}
