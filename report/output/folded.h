/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, "comm;root;...;leaf", with their weights per column: one
 * column for --folded, two (the base and the new recording) for --diff.
 */
#ifndef RP_FOLDED_H
#define RP_FOLDED_H

#include "report/output/output.h"

struct rp_folded {
	struct rp_strtab lines; /* id 0 ("") is never a line */
	uint64_t *counts;       /* counts[id * ncols + column] */
	size_t cap;
	unsigned ncols;
};

/* Collects every kept aggregate; with ncols 2 the column is the
 * aggregate's recording (0 base, 1 new), else 0. */
void rp_folded_collect(const struct rp_report *r, struct rp_folded *f, unsigned ncols);
/* The line ids in byte order; *n gets their count. Free the result. */
uint32_t *rp_folded_sorted(const struct rp_folded *f, size_t *n);
void rp_folded_free(struct rp_folded *f);

#endif /* RP_FOLDED_H */
