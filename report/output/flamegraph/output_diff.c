// SPDX-License-Identifier: MIT
/*
 * --diff BASE.tr NEW.tr: the two recordings are loaded as recordings 0
 * and 1 of one model, and every output here keeps them apart by the
 * aggregate's rec.
 *   --folded      "stack count_base count_new", FlameGraph's difffolded.pl
 *                 format: each column sums to its recording's total;
 *   --flamegraph  a differential flame graph (flamegraph.h);
 *   (default)     the functions whose samples changed most, by self and
 *                 by total, with each side's share of its own total.
 * --normalize scales the base to the new total before computing changes
 * (colours, the summary's Change); folded columns stay raw counts.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/flamegraph/flamegraph.h"
#include "report/output/folded.h"
#include "report/output/func_stats.h"

static int diff_folded(const struct rp_report *r, FILE *out)
{
	struct rp_folded f;
	size_t n;
	rp_folded_collect(r, &f, 2);
	uint32_t *order = rp_folded_sorted(&f, &n);
	for (size_t i = 0; i < n; i++) {
		const uint64_t *c = &f.counts[(size_t)order[i] * 2];
		fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", rp_str(&f.lines, order[i]), c[0], c[1]);
	}
	free(order);
	rp_folded_free(&f);
	return 0;
}

static const char *rec_name(const struct rp_report *r, uint32_t rec)
{
	return rp_str(&r->m->strs, r->m->recs[rec].path);
}

static int diff_flamegraph(const struct rp_report *r, FILE *out)
{
	struct rp_ftree t;
	struct rp_buf sub = { 0 };
	rp_ftree_build(r, &t, 2);
	rp_buf_printf(&sub, "%s (%" PRIu64 " %s) vs %s (%" PRIu64 " %s)", rec_name(r, 0),
		      t.nodes[0].w[0], rp_weight_unit(r), rec_name(r, 1), t.nodes[0].w[1],
		      rp_weight_unit(r));
	int rc = rp_flamegraph_write(r, &t, sub.p, out);
	rp_buf_free(&sub);
	rp_ftree_free(&t);
	return rc;
}

struct table {
	const struct rp_funcs *fs;
	double scale; /* for the base */
	bool self;
};

static double change(const struct table *t, const struct rp_func *f)
{
	const uint64_t *v = t->self ? f->self : f->total;
	return (double)v[1] - (double)v[0] * t->scale;
}

static int cmp_change(const void *a, const void *b, void *ctx)
{
	const struct table *t = ctx;
	const struct rp_func *x = &t->fs->funcs[*(const uint32_t *)a];
	const struct rp_func *y = &t->fs->funcs[*(const uint32_t *)b];
	double cx = fabs(change(t, x)), cy = fabs(change(t, y));
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return (x->label > y->label) - (x->label < y->label);
}

static double share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void print_table(const struct rp_report *r, FILE *out, struct table *t, uint32_t *order)
{
	const struct rp_funcs *fs = t->fs;
	qsort_r(order, fs->n, sizeof(*order), cmp_change, t);
	fprintf(out, "# Functions whose %s changed most\n#\n"
		     "#    Base      New     Change  Base %-7s New %-7s Shared Object         Symbol\n",
		t->self ? "self samples (leaf)" : "total samples (self + children)", "count",
		"count");
	size_t rows = fs->n < r->o->top ? fs->n : r->o->top;
	for (size_t i = 0; i < rows; i++) {
		const struct rp_func *f = &fs->funcs[order[i]];
		const uint64_t *v = t->self ? f->self : f->total;
		double c = change(t, f);
		if (c == 0 && v[0] == v[1])
			break;
		const char *dso = rp_str(&r->m->strs, f->dso), *base = strrchr(dso, '/');
		fprintf(out, "  %6.2f%%  %6.2f%%  %+9.0f  %10" PRIu64 "  %9" PRIu64 "  %-20s  %s\n",
			share(v[0], fs->all[0]), share(v[1], fs->all[1]), c, v[0], v[1],
			base ? base + 1 : dso, rp_str(&r->m->strs, f->label));
	}
	fprintf(out, "\n");
}

static int diff_summary(const struct rp_report *r, FILE *out)
{
	struct rp_funcs fs;
	rp_funcs_collect(r, &fs, 2, false);
	const char *unit = rp_weight_unit(r);
	struct table t = { .fs = &fs, .scale = 1 };
	if (r->o->diff_normalize && fs.all[0])
		t.scale = (double)fs.all[1] / (double)fs.all[0];
	fprintf(out, "# base: %s, %" PRIu64 " %s\n# new:  %s, %" PRIu64 " %s\n", rec_name(r, 0),
		fs.all[0], unit, rec_name(r, 1), fs.all[1], unit);
	fprintf(out, "# Base and New: shares of each recording's total; Change: new - base %s%s\n#\n",
		unit, t.scale != 1 ? ", the base normalised to the new total" : "");
	if (!fs.all[0] && !fs.all[1]) {
		fprintf(out, "# no samples\n");
	} else {
		uint32_t *order = xcalloc(fs.n ? fs.n : 1, sizeof(*order));
		for (size_t i = 0; i < fs.n; i++)
			order[i] = (uint32_t)i;
		t.self = true;
		print_table(r, out, &t, order);
		t.self = false;
		print_table(r, out, &t, order);
		free(order);
	}
	rp_funcs_free(&fs);
	return 0;
}

int rp_output_diff(const struct rp_report *r, FILE *out)
{
	switch (r->o->output) {
	case RP_OUT_FOLDED: return diff_folded(r, out);
	case RP_OUT_FLAMEGRAPH: return diff_flamegraph(r, out);
	default: return diff_summary(r, out);
	}
}
