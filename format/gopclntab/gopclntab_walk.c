// SPDX-License-Identifier: MIT
/*
 * One function's pc-value tables: lines (pcfile + pcln) and inlined calls
 * (PCDATA_InlTreeIndex + FUNCDATA_InlTree), walked in pc order or looked
 * up at one pc.
 *
 * A pc-value table is a byte stream in pctab: from val = -1 at the entry,
 * each step is a uvarint zig-zag value delta then a uvarint pc delta (in
 * quanta); the value holds up to the new pc. A 0 byte where a value delta
 * would start (after the first step) ends the table.
 *
 * Inline tree entries (at the funcdata address):
 *   1.16-1.19, 20 bytes: parent i16, funcID u8, pad, file i32, line i32,
 *                        nameoff i32, parentPc i32
 *   1.20+,     16 bytes: funcID u8, pad[3], nameoff i32, parentPc i32, startLine i32
 * The inline index at a pc names the innermost inlined call; the caller is
 * the index at entry + parentPc, whose file:line is the call site. This is
 * how the runtime itself unwinds them in every layout (1.20 dropped parent).
 */
#include <errno.h>
#include <stdlib.h>

#include "format/gopclntab/gopclntab_internal.h"

/* Beyond this many runs in one table, the function is refused. */
#define MAX_RUNS (1u << 21)

static bool uvarint(const struct gopclntab *g, uint64_t *p, uint32_t *v)
{
	uint32_t x = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*p >= g->pctab.hi)
			return false;
		uint8_t b = g->tab[(*p)++];
		x |= (uint32_t)(b & 0x7f) << shift; /* bits past 32 drop, as Go's */
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static int push_run(struct gopcln_runs *o, uint64_t lo, uint64_t hi, int32_t val)
{
	if (o->n == o->cap) {
		if (o->cap >= MAX_RUNS)
			return -E2BIG;
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct gopcln_run *v = realloc(o->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = (struct gopcln_run){ lo, hi, val };
	return 0;
}

/* Decodes the table at pctab offset off over [entry, end) into o. A walk
 * spends g->budget; a lookup is bounded by the function's size alone. */
static int decode(struct gopclntab *g, const struct gopcln_funcrec *r, uint32_t off,
		  struct gopcln_runs *o, bool budgeted)
{
	o->n = 0;
	if (!off)
		return 0;
	if (off >= g->pctab.hi - g->pctab.lo)
		return -EBADMSG;
	uint64_t p = g->pctab.lo + off, pc = r->entry;
	uint64_t max_steps = (r->end - r->entry) / g->quantum + 16;
	int32_t val = -1;
	for (uint64_t step = 0; step < max_steps && pc < r->end; step++) {
		uint32_t dv, dpc;
		if (p >= g->pctab.hi || (step && g->tab[p] == 0))
			break;
		if (!uvarint(g, &p, &dv) || !uvarint(g, &p, &dpc))
			return -EBADMSG;
		if (budgeted && !g->budget--) {
			g->budget = 0;
			return -E2BIG;
		}
		val = (int32_t)((uint32_t)val + ((dv & 1) ? ~(dv >> 1) : dv >> 1));
		uint64_t lo = pc, adv = (uint64_t)dpc * g->quantum;
		pc = adv > r->end - pc ? r->end : pc + adv;
		if (pc > lo) {
			int err = push_run(o, lo, pc, val);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The value at pc, -1 where the table says nothing. */
static int32_t value_at(const struct gopcln_runs *o, uint64_t pc)
{
	size_t lo = 0, hi = o->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->v[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n && o->v[lo].lo <= pc ? o->v[lo].val : -1;
}

/* ---- inline trees ------------------------------------------------------ */

struct inl_tree {
	uint64_t base;        /* vaddr of entry 0, 0 if the function has none */
	unsigned entsize, name_at, parent_pc_at;
};

static struct inl_tree inl_tree_of(const struct gopclntab *g, const struct gopcln_funcrec *r)
{
	bool v120 = g->layout >= 120;
	struct inl_tree t = { .entsize = v120 ? 16 : 20, .name_at = v120 ? 4 : 12,
			      .parent_pc_at = v120 ? 8 : 16 };
	if (gopcln_pcdata_offset(g, r, PCDATA_INL_TREE_INDEX))
		t.base = gopcln_funcdata_vaddr(g, r, FUNCDATA_INL_TREE);
	return t;
}

static bool inl_field(const struct gopclntab *g, const struct inl_tree *t, int32_t node,
		      unsigned at, int32_t *v)
{
	uint64_t x, addr = t->base + (uint64_t)node * t->entsize + at;
	if (node < 0 || (uint32_t)node >= GOPCLN_MAX_INL_INDEX || addr < t->base ||
	    !gopcln_read_vaddr(g, addr, 4, &x))
		return false;
	*v = (int32_t)(uint32_t)x;
	return true;
}

/* The pc whose file:line is node's call site, 0 if damaged. */
static uint64_t call_site_pc(const struct gopclntab *g, const struct inl_tree *t,
			     const struct gopcln_funcrec *r, int32_t node)
{
	int32_t ppc;
	if (!inl_field(g, t, node, t->parent_pc_at, &ppc) || ppc < 0 ||
	    (uint64_t)ppc >= r->end - r->entry)
		return 0;
	return r->entry + (uint64_t)ppc;
}

/* The inline chain at pc, innermost first, in nodes[GOPCLN_MAX_DEPTH].
 * Returns its length, or -1 if it is damaged (a loop, a bad parentPc). */
static int inl_chain(const struct gopclntab *g, const struct inl_tree *t,
		     const struct gopcln_funcrec *r, int32_t node, int32_t *nodes)
{
	int k = 0;
	while (node >= 0) {
		if (k == (int)GOPCLN_MAX_DEPTH)
			return -1;
		nodes[k++] = node;
		uint64_t site = call_site_pc(g, t, r, node);
		if (!site)
			return -1;
		node = value_at(&g->inl, site);
	}
	return k;
}

/* ---- walking one function ---------------------------------------------- */

struct open_call {
	int32_t node; /* -1: none open at this depth */
	uint64_t lo, hi;
};

static void emit_call(struct gopclntab *g, const struct gopcln_visitor *v,
		      const struct inl_tree *t, const struct gopcln_funcrec *r, unsigned depth,
		      struct open_call *c)
{
	int32_t nameoff;
	if (c->node < 0)
		return;
	const char *name = NULL, *file = NULL;
	uint32_t line = 0;
	if (inl_field(g, t, c->node, t->name_at, &nameoff) && nameoff >= 0)
		name = gopcln_string(g, g->funcnames, (uint64_t)nameoff);
	uint64_t site = call_site_pc(g, t, r, c->node);
	if (site) {
		int32_t l = value_at(&g->lines, site);
		file = gopcln_file_name(g, r, value_at(&g->files, site));
		line = file && l > 0 ? (uint32_t)l : 0;
	}
	v->inlined(v->ctx, depth, c->lo, c->hi, name ? name : "?", file, line);
	c->node = -1;
}

static void walk_inlines(struct gopclntab *g, const struct gopcln_visitor *v,
			 const struct inl_tree *t, const struct gopcln_funcrec *r)
{
	struct open_call open[GOPCLN_MAX_DEPTH];
	int32_t nodes[GOPCLN_MAX_DEPTH];
	for (unsigned d = 0; d < GOPCLN_MAX_DEPTH; d++)
		open[d].node = -1;
	for (size_t i = 0; i < g->inl.n; i++) {
		const struct gopcln_run *run = &g->inl.v[i];
		int k = run->val < 0 ? 0 : inl_chain(g, t, r, run->val, nodes);
		if (k < 0)
			k = 0; /* damaged: no inlined calls here */
		/* Depth d + 1 is nodes[k - 1 - d]: outermost first. */
		for (int d = 0; d < (int)GOPCLN_MAX_DEPTH; d++) {
			struct open_call *c = &open[d];
			if (d < k && c->node == nodes[k - 1 - d] && c->hi == run->lo) {
				c->hi = run->hi;
				continue;
			}
			emit_call(g, v, t, r, (unsigned)d + 1, c);
			if (d < k)
				*c = (struct open_call){ nodes[k - 1 - d], run->lo, run->hi };
		}
	}
	for (unsigned d = 0; d < GOPCLN_MAX_DEPTH; d++)
		emit_call(g, v, t, r, d + 1, &open[d]);
}

static void walk_lines(struct gopclntab *g, const struct gopcln_visitor *v,
		       const struct gopcln_funcrec *r)
{
	const struct gopcln_runs *f = &g->files, *l = &g->lines;
	size_t i = 0, j = 0;
	uint64_t pc = r->entry;
	while (pc < r->end) {
		while (i < f->n && f->v[i].hi <= pc)
			i++;
		while (j < l->n && l->v[j].hi <= pc)
			j++;
		if (i == f->n || j == l->n || f->v[i].lo > pc || l->v[j].lo > pc)
			break;
		const char *file = gopcln_file_name(g, r, f->v[i].val);
		int32_t line = l->v[j].val;
		if (file && line >= 0)
			v->line(v->ctx, pc, file, (uint32_t)line);
		else
			v->line(v->ctx, pc, NULL, 0);
		pc = f->v[i].hi < l->v[j].hi ? f->v[i].hi : l->v[j].hi;
	}
	v->line(v->ctx, pc, NULL, 0);
}

/* Decodes the three tables of function i into g's scratch. */
static int decode_func(struct gopclntab *g, size_t i, struct gopcln_funcrec *r,
		       struct inl_tree *t, bool budgeted)
{
	int err = gopcln_func_record(g, i, r);
	if (err)
		return err;
	*t = inl_tree_of(g, r);
	g->inl.n = 0;
	if ((err = decode(g, r, r->pcfile, &g->files, budgeted)) ||
	    (err = decode(g, r, r->pcln, &g->lines, budgeted)))
		return err;
	if (t->base && (err = decode(g, r, gopcln_pcdata_offset(g, r, PCDATA_INL_TREE_INDEX),
				     &g->inl, budgeted)))
		return err;
	return 0;
}

int gopclntab_walk_func(struct gopclntab *g, size_t i, const struct gopcln_visitor *v)
{
	struct gopcln_funcrec r;
	struct inl_tree t;
	int err = decode_func(g, i, &r, &t, true);
	if (err)
		return err;
	if (v->line)
		walk_lines(g, v, &r);
	if (v->inlined && t.base)
		walk_inlines(g, v, &t, &r);
	return 0;
}

int gopclntab_lookup(struct gopclntab *g, uint64_t pc, struct gopcln_frame *frames,
		     unsigned max)
{
	struct gopcln_funcrec r;
	struct inl_tree t;
	int32_t nodes[GOPCLN_MAX_DEPTH];
	long i = gopclntab_find(g, pc);
	if (i < 0 || !max)
		return 0;
	int err = decode_func(g, (size_t)i, &r, &t, false);
	if (err)
		return err;
	int k = t.base ? inl_chain(g, &t, &r, value_at(&g->inl, pc), nodes) : 0;
	if (k < 0)
		k = 0;
	uint64_t at = pc; /* where frame j executes: pc, then each call site */
	unsigned n = 0;
	for (int j = 0; j <= k && n < max; j++, n++) {
		struct gopcln_frame *f = &frames[n];
		int32_t nameoff;
		f->function = j < k ? (inl_field(g, &t, nodes[j], t.name_at, &nameoff) && nameoff >= 0
				       ? gopcln_string(g, g->funcnames, (uint64_t)nameoff) : NULL)
				    : gopcln_string(g, g->funcnames, r.nameoff);
		int32_t line = value_at(&g->lines, at);
		f->file = gopcln_file_name(g, &r, value_at(&g->files, at));
		f->line = f->file && line > 0 ? (uint32_t)line : 0;
		if (j < k)
			at = call_site_pc(g, &t, &r, nodes[j]);
	}
	return (int)n;
}

int gopclntab_walk_sp(struct gopclntab *g, size_t i,
		      void (*run)(void *ctx, uint64_t lo, uint64_t hi, int32_t sp_delta), void *ctx)
{
	struct gopcln_funcrec r;
	int err = gopcln_func_record(g, i, &r);
	if (err)
		return err;
	if (!r.pcsp)
		return -EBADMSG;
	if ((err = decode(g, &r, r.pcsp, &g->sp, false)))
		return err;
	for (size_t k = 0; k < g->sp.n; k++)
		run(ctx, g->sp.v[k].lo, g->sp.v[k].hi, g->sp.v[k].val);
	return 0;
}
