// SPDX-License-Identifier: MIT
/* The flame graph's call tree (see flame_tree.h). */
#include "report/output/flamegraph/flame_tree.h"

#include <stdlib.h>
#include <string.h>

#include "report/output/frame_names.h"

struct node_key {
	const struct rp_ftree *t;
	uint32_t parent, name;
	uint8_t kind;
};

static bool node_eq(const void *ctx, uint32_t idx)
{
	const struct node_key *k = ctx;
	const struct rp_fnode *n = &k->t->nodes[idx];
	return n->parent == k->parent && n->name == k->name && n->kind == k->kind;
}

static uint32_t child(struct rp_ftree *t, uint32_t parent, const struct rp_nframe *f)
{
	struct node_key k = { t, parent, f->name, f->kind };
	uint64_t h = rp_hash_u64(((uint64_t)parent << 32 | f->name) ^ rp_hash_u64(f->kind));
	uint32_t i = trec_itab_find(&t->index, h, node_eq, &k);
	if (i != TREC_ITAB_NONE)
		return i;
	RP_GROW(t->nodes, t->cap, t->n + 1);
	i = (uint32_t)t->n++;
	struct rp_fnode *p = &t->nodes[parent];
	t->nodes[i] = (struct rp_fnode){
		.name = f->name, .kind = f->kind, .depth = p->depth + 1, .parent = parent,
		.first_child = RP_FT_NONE, .next_sibling = p->first_child,
	};
	p->first_child = i;
	if (p->depth + 1 > t->max_depth)
		t->max_depth = p->depth + 1;
	rp_itab_insert(&t->index, h, i);
	return i;
}

static void add_weight(struct rp_fnode *n, unsigned col, uint64_t w)
{
	n->w[col] = rp_sat_add(n->w[col], w);
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct rp_report *r = ctx;
	const struct rp_fnode *x = *(const struct rp_fnode *const *)a, *y = *(const struct rp_fnode *const *)b;
	int c = strcmp(rp_str(&r->m->strs, x->name), rp_str(&r->m->strs, y->name));
	return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

/* Relinks every node's children in name order. */
static void sort_children(const struct rp_report *r, struct rp_ftree *t)
{
	struct rp_fnode **kids = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t nk = 0;
		for (uint32_t c = t->nodes[i].first_child; c != RP_FT_NONE; c = t->nodes[c].next_sibling) {
			RP_GROW(kids, cap, nk + 1);
			kids[nk++] = &t->nodes[c];
		}
		if (nk < 2)
			continue;
		qsort_r(kids, nk, sizeof(*kids), cmp_name, (void *)r);
		t->nodes[i].first_child = (uint32_t)(kids[0] - t->nodes);
		for (size_t k = 0; k < nk; k++)
			kids[k]->next_sibling = k + 1 < nk ? (uint32_t)(kids[k + 1] - t->nodes) : RP_FT_NONE;
	}
	free(kids);
}

void rp_ftree_build(const struct rp_report *r, struct rp_ftree *t, unsigned ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols == 2 ? 2 : 1;
	RP_GROW(t->nodes, t->cap, 1);
	t->nodes[0] = (struct rp_fnode){
		.name = rp_strtab_intern(&r->m->strs, "all"), .kind = RP_FK_ROOT,
		.parent = RP_FT_NONE, .first_child = RP_FT_NONE, .next_sibling = RP_FT_NONE,
	};
	t->n = 1;
	struct rp_namer *nm = rp_namer_new(r);
	for (size_t i = 0; i < r->m->naggs; i++) {
		const struct rp_agg *a = &r->m->aggs[i];
		if (!a->count)
			continue;
		unsigned col = t->ncols == 2 && a->rec < 2 ? a->rec : 0;
		const struct rp_nframe *f;
		uint32_t n = rp_namer_stack(nm, a, &f);
		uint32_t at = 0;
		add_weight(&t->nodes[0], col, a->count);
		for (uint32_t k = 0; k < n; k++) {
			at = child(t, at, &f[k]);
			add_weight(&t->nodes[at], col, a->count);
		}
	}
	rp_namer_free(nm);
	sort_children(r, t);
}

void rp_ftree_free(struct rp_ftree *t)
{
	free(t->nodes);
	trec_itab_free(&t->index);
	memset(t, 0, sizeof(*t));
}
