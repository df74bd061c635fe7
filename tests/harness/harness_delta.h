/* SPDX-License-Identifier: MIT */
/* Trace deltas' proof, offline (harness_delta.c). */
#ifndef HARNESS_DELTA_H
#define HARNESS_DELTA_H

#include <stdbool.h>
#include "harness.h"
#include "harness_case.h"

/* After a sample that replayed (its trace: want): false, with a FAIL
 * line's reason in *why, if a send the ring buffer refused is extended by
 * a delta, or if a delta whose base trecord lost is completed from any
 * other trace. *lost_base_seen: a lost base was caught. */
bool harness_delta_check(struct harness_env *e, const struct harness_case *c,
			 const struct trec_trace *want, bool *lost_base_seen, const char **why);

#endif /* HARNESS_DELTA_H */
