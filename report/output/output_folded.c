// SPDX-License-Identifier: MIT
/*
 * Folded stacks for flamegraph.pl: "comm;root;...;leaf count", one line
 * per distinct stack, sorted. Frame names follow stackcollapse-perf.pl so
 * that `treport --perf-script | stackcollapse-perf.pl` and `treport
 * --folded` agree: an unresolved frame is [dso basename], ';' becomes ':'
 * and quotes are dropped; inlined functions are frames of their own.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void add_name(struct rp_buf *b, const char *name)
{
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\'')
			continue;
		char c = *p == ';' ? ':' : *p;
		rp_buf_add(b, &c, 1);
	}
}

static void add_frame(struct rp_buf *b, const struct rp_report *r, const struct rp_sym *sym)
{
	const struct rp_strtab *st = &r->m->strs;
	if (!sym->resolved && (sym->kind == RP_SYM_NATIVE || sym->kind == RP_SYM_KERNEL)) {
		const char *dso = rp_str(st, sym->dso);
		if (!strcmp(dso, "[unknown]")) {
			rp_buf_adds(b, ";[unknown]");
			return;
		}
		const char *base = strrchr(dso, '/');
		rp_buf_adds(b, ";[");
		add_name(b, base ? base + 1 : dso);
		rp_buf_adds(b, "]");
		return;
	}
	if (sym->kind == RP_SYM_PYTHON) { /* "function (file.py:line)" */
		rp_buf_adds(b, ";");
		add_name(b, rp_str(st, sym->label));
		return;
	}
	const struct rp_line *l = rp_sym_lines(r->s, sym);
	for (uint32_t i = sym->nlines; i-- > 0;) { /* caller first */
		rp_buf_adds(b, ";");
		add_name(b, rp_str(st, l[i].func));
	}
}

/* The root frame: comm, with spaces made '_' as stackcollapse does. */
static void add_root(struct rp_buf *b, const struct rp_report *r, const struct rp_agg *a)
{
	char comm[32];
	rp_comm_name(r->m, a, comm, sizeof(comm));
	for (char *p = comm; *p; p++)
		if (*p == ' ')
			*p = '_';
	add_name(b, comm);
	if (r->o->folded_tid)
		rp_buf_printf(b, "-%u/%u", a->pid, a->tid);
	else if (r->o->folded_pid)
		rp_buf_printf(b, "-%u", a->pid);
}

struct folded {
	struct rp_strtab lines;
	uint64_t *counts;
	size_t cap;
};

static int cmp_line(const void *a, const void *b, void *tab)
{
	return strcmp(rp_str(tab, *(const uint32_t *)a), rp_str(tab, *(const uint32_t *)b));
}

int rp_output_folded(const struct rp_report *r, FILE *out)
{
	struct folded f = { 0 };
	struct rp_buf b = { 0 };
	uint32_t *syms = NULL;
	size_t capsyms = 0;
	rp_strtab_init(&f.lines);

	for (size_t i = 0; i < r->m->naggs; i++) {
		const struct rp_agg *a = &r->m->aggs[i];
		if (!a->count)
			continue;
		rp_buf_reset(&b);
		add_root(&b, r, a);
		uint32_t n = rp_agg_syms(r, a, &syms, &capsyms);
		for (uint32_t k = 0; k < n; k++)
			add_frame(&b, r, rp_sym_get(r->s, syms[k]));
		size_t before = f.lines.count;
		uint32_t id = rp_strtab_intern_n(&f.lines, b.p, b.len);
		RP_GROW(f.counts, f.cap, (size_t)id + 1);
		if (f.lines.count > before)
			f.counts[id] = 0;
		f.counts[id] = f.counts[id] + a->count < f.counts[id] ? UINT64_MAX : f.counts[id] + a->count;
	}

	size_t n = f.lines.count - 1; /* id 0 is the empty string, never a line */
	uint32_t *order = xcalloc(n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)(i + 1);
	qsort_r(order, n, sizeof(*order), cmp_line, &f.lines);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %" PRIu64 "\n", rp_str(&f.lines, order[i]), f.counts[order[i]]);

	free(order);
	free(syms);
	free(f.counts);
	rp_buf_free(&b);
	rp_strtab_free(&f.lines);
	return 0;
}
