/* SPDX-License-Identifier: MIT */
/* The flame graph SVG of a call tree; --flamegraph and --diff --flamegraph. */
#ifndef RP_FLAMEGRAPH_H
#define RP_FLAMEGRAPH_H

#include "report/output/flame_tree.h"

/*
 * Writes t as a self-contained interactive SVG. A tree of one column is an
 * ordinary flame graph coloured by frame kind; of two columns (base, new),
 * a differential one: frames as wide as in the new recording, red where
 * they grew and blue where they shrank (with r->o->diff_normalize, the base
 * scaled to the new total first). subtitle may be NULL.
 */
int rp_flamegraph_write(const struct rp_report *r, const struct rp_ftree *t,
			const char *subtitle, FILE *out);

#endif /* RP_FLAMEGRAPH_H */
