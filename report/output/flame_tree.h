/* SPDX-License-Identifier: MIT */
/*
 * The call tree a flame graph draws: the stacks of frame_names.h merged
 * from a root "all", weights per column (one, or the diff's base and new),
 * children in name order as flamegraph.pl draws them.
 */
#ifndef RP_FLAME_TREE_H
#define RP_FLAME_TREE_H

#include "report/output/output.h"

#define RP_FT_NONE UINT32_MAX

struct rp_fnode {
	uint32_t name;  /* string id in the model */
	uint8_t kind;   /* enum rp_fkind */
	uint32_t depth; /* the root is 0 */
	uint32_t parent, first_child, next_sibling; /* node ids or RP_FT_NONE */
	uint64_t w[2];  /* weight per column, the children's included */
};

struct rp_ftree {
	struct rp_fnode *nodes; /* [0] is the root */
	size_t n, cap;
	struct trec_itab index; /* (parent, name, kind) */
	unsigned ncols;
	uint32_t max_depth;
};

/* Builds the tree of every kept aggregate; with ncols 2 an aggregate
 * weighs in the column of its recording (0 base, 1 new), else in 0.
 * Children end up sorted by name. */
void rp_ftree_build(const struct rp_report *r, struct rp_ftree *t, unsigned ncols);
void rp_ftree_free(struct rp_ftree *t);

#endif /* RP_FLAME_TREE_H */
