/* SPDX-License-Identifier: MIT */
/*
 * Samples per function, as perf report's default sort keys them: a
 * function is a (shared object, symbol) pair, without inlined frames (an
 * interpreter's: its name in its file, whatever its line);
 * "self" counts samples whose leaf is in it, "total" (perf's children)
 * samples with it anywhere on the stack, once per stack however deep the
 * recursion. The summary uses one column, --diff two (base, new).
 */
#ifndef RP_FUNC_STATS_H
#define RP_FUNC_STATS_H

#include "report/output/output.h"

struct rp_func {
	uint32_t dso, label; /* string ids */
	uint64_t self[2], total[2];
	size_t stamp; /* last aggregate counted in total, + 1 */
};

struct rp_funcs {
	struct rp_func *funcs;
	size_t n, cap;
	struct trec_itab index;
	uint64_t all[2]; /* the samples counted, per column */
};

/* Counts every kept aggregate; with ncols 2 in the column of its
 * recording (0 base, 1 new), else in 0; by_time: each count times its
 * recording's period (ns of CPU). */
void rp_funcs_collect(const struct rp_report *r, struct rp_funcs *fs, unsigned ncols,
		      bool by_time);
void rp_funcs_free(struct rp_funcs *fs);

#endif /* RP_FUNC_STATS_H */
