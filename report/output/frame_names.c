// SPDX-License-Identifier: MIT
/* Frame names of the stack-shaped outputs (see frame_names.h). */
#include "report/output/frame_names.h"

#include <stdlib.h>
#include <string.h>
#include "report/interp/interp.h"

const char *rp_nframe_kind_name(const struct rp_nframe *f)
{
	static const char *const names[RP_FK_COUNT] = {
		[RP_FK_ROOT] = "process", [RP_FK_NATIVE] = "native", [RP_FK_INLINED] = "inlined",
		[RP_FK_KERNEL] = "kernel", [RP_FK_INTERP] = "interpreted", [RP_FK_ERROR] = "error",
	};
	const struct rp_interp_ops *ops;

	if (f->kind == RP_FK_INTERP && (ops = rp_interp_for_kind(f->lang, NULL)))
		return ops->name;
	return f->kind < RP_FK_COUNT ? names[f->kind] : "unknown";
}

struct rp_namer {
	const struct rp_report *r;
	uint32_t *sym_first, *sym_len; /* per symbol id; len 0 = not named yet */
	size_t capfirst, caplen;
	struct rp_nframe *pool;
	size_t npool, cappool;
	struct rp_nframe *out;
	size_t capout;
	uint32_t *syms;
	size_t capsyms;
	struct rp_buf b;
};

struct rp_namer *rp_namer_new(const struct rp_report *r)
{
	struct rp_namer *n = xcalloc(1, sizeof(*n));
	n->r = r;
	return n;
}

void rp_namer_free(struct rp_namer *n)
{
	if (!n)
		return;
	free(n->sym_first);
	free(n->sym_len);
	free(n->pool);
	free(n->out);
	free(n->syms);
	rp_buf_free(&n->b);
	free(n);
}

static uint8_t kind_of(const struct rp_sym *sym)
{
	switch (sym->kind) {
	case RP_SYM_KERNEL: return RP_FK_KERNEL;
	case RP_SYM_ERROR: return RP_FK_ERROR;
	case RP_SYM_INTERP: return RP_FK_INTERP;
	default: return RP_FK_NATIVE;
	}
}

static void push(struct rp_namer *n, uint32_t name, uint32_t dso, uint32_t file, uint32_t line,
		 uint8_t kind)
{
	RP_GROW(n->pool, n->cappool, n->npool + 1);
	n->pool[n->npool++] = (struct rp_nframe){ name, dso, file, line, kind, 0 };
}

/* Appends the frames of one symbol to the pool, outermost first. */
static void name_sym(struct rp_namer *n, const struct rp_sym *sym)
{
	struct rp_model *m = n->r->m;
	uint8_t kind = kind_of(sym);
	const struct rp_line *l = rp_sym_lines(n->r->s, sym);
	if (!sym->resolved && (sym->kind == RP_SYM_NATIVE || sym->kind == RP_SYM_KERNEL)) {
		/* [dso basename], as stackcollapse-perf.pl names [unknown] in a dso */
		const char *dso = rp_str(&m->strs, sym->dso);
		uint32_t name = sym->dso;
		if (strcmp(dso, "[unknown]") != 0) {
			const char *base = strrchr(dso, '/');
			rp_buf_reset(&n->b);
			rp_buf_printf(&n->b, "[%s]", base ? base + 1 : dso);
			name = rp_strtab_intern_n(&m->strs, n->b.p, n->b.len);
		}
		push(n, name, sym->dso, 0, 0, kind);
		return;
	}
	if (sym->kind == RP_SYM_INTERP || sym->kind == RP_SYM_ERROR) {
		push(n, sym->label, sym->dso, l[0].file, l[0].line, kind);
		n->pool[n->npool - 1].lang = sym->lang;
		return;
	}
	for (uint32_t i = sym->nlines; i-- > 0;) /* caller first */
		push(n, l[i].func, sym->dso, l[i].file, l[i].line,
		     i == sym->nlines - 1 ? kind : RP_FK_INLINED);
}

static void root_frame(struct rp_namer *n, const struct rp_agg *a, struct rp_nframe *f)
{
	char comm[32];
	rp_comm_name(n->r->m, a, comm, sizeof(comm));
	rp_buf_reset(&n->b);
	rp_buf_adds(&n->b, comm);
	if (n->r->o->folded_tid)
		rp_buf_printf(&n->b, "-%u/%u", a->pid, a->tid);
	else if (n->r->o->folded_pid)
		rp_buf_printf(&n->b, "-%u", a->pid);
	*f = (struct rp_nframe){ .kind = RP_FK_ROOT,
				 .name = rp_strtab_intern_n(&n->r->m->strs, n->b.p, n->b.len) };
}

uint32_t rp_namer_stack(struct rp_namer *n, const struct rp_agg *a, const struct rp_nframe **out)
{
	uint32_t nsyms = rp_agg_syms(n->r, a, &n->syms, &n->capsyms);
	size_t count = 1;
	for (uint32_t k = 0; k < nsyms; k++) {
		uint32_t id = n->syms[k];
		if (id >= n->caplen) {
			size_t old = n->caplen;
			RP_GROW(n->sym_len, n->caplen, (size_t)id + 1);
			RP_GROW(n->sym_first, n->capfirst, n->caplen);
			memset(n->sym_len + old, 0, (n->caplen - old) * sizeof(*n->sym_len));
		}
		if (!n->sym_len[id]) {
			size_t before = n->npool;
			name_sym(n, rp_sym_get(n->r->s, id));
			n->sym_first[id] = (uint32_t)before;
			n->sym_len[id] = (uint32_t)(n->npool - before);
		}
		count += n->sym_len[id];
	}
	RP_GROW(n->out, n->capout, count);
	root_frame(n, a, &n->out[0]);
	size_t j = 1;
	for (uint32_t k = 0; k < nsyms; k++) {
		uint32_t id = n->syms[k], run = rp_interp_run_after(n->r, n->syms, k, nsyms);
		const struct rp_nframe *f = n->pool + n->sym_first[id];
		if (!run) {
			memcpy(n->out + j, f, n->sym_len[id] * sizeof(*n->out));
			j += n->sym_len[id];
			continue;
		}
		/* the interpreter loop's function, the frames it runs, then
		 * what is inlined at its pc: called from the innermost of them */
		n->out[j++] = f[0];
		for (uint32_t r = 1; r <= run; r++) {
			uint32_t rid = n->syms[k + r];
			memcpy(n->out + j, n->pool + n->sym_first[rid], n->sym_len[rid] * sizeof(*n->out));
			j += n->sym_len[rid];
		}
		memcpy(n->out + j, f + 1, (n->sym_len[id] - 1) * sizeof(*n->out));
		j += n->sym_len[id] - 1;
		k += run;
	}
	*out = n->out;
	return (uint32_t)j;
}
