// SPDX-License-Identifier: MIT
/*
 * Trace deltas (bpf/trace_delta.h, record/io/trace_delta.c), offline, on
 * every case whose second sample replayed:
 *  1. the ring buffer refuses a send: the next trace, though replayed, is
 *     sent whole (its base never reached trecord);
 *  2. a sent trace is lost before trecord sees it and the base trecord
 *     still has (an older trace) is poisoned: the next delta must come out
 *     as its leaf and a DELTA_NO_BASE error frame, never completed;
 *  3. deltas stay leaf-only until the CPU's next whole trace (at most
 *     TREC_DELTA_WHOLE_EVERY sends), and are rebuilt right after it.
 */
#include <string.h>
#include "harness_delta.h"
#include "record/io/trace_delta.h"

static bool unwind_same(struct harness_env *e, const struct harness_case *c,
			const struct trec_trace *want)
{
	return harness_unwind(e, &c->regs, c->pid, c->tid) == 0 &&
	       memcmp(want, &e->trace, sizeof(*want)) == 0;
}

/* e->trace is want's leaf and the DELTA_NO_BASE error frame. */
static bool leaf_only(const struct harness_env *e, const struct trec_trace *want)
{
	const struct trec_frame *err = &e->trace.frames[1];

	return e->delta_result == TREC_DELTA_NO_BASE && e->trace.num_frames == 2 &&
	       memcmp(&e->trace.frames[0], &want->frames[0], sizeof(want->frames[0])) == 0 &&
	       err->flags == TREC_FRAME_F_ERROR && err->addr_or_line == TREC_ERR_DELTA_NO_BASE;
}

static bool refused_send_not_extended(struct harness_env *e, const struct harness_case *c,
				      const struct trec_trace *want, const char **why)
{
	uint64_t deltas;

	harness_ring_full_next();
	if (harness_unwind(e, &c->regs, c->pid, c->tid) == 0) {
		*why = "a send the ring buffer refused was taken as sent";
		return false;
	}
	deltas = e->metrics[TREC_METRIC_TRACES_SENT_DELTA];
	if (!unwind_same(e, c, want)) {
		*why = "after a send the ring buffer refused, another trace";
		return false;
	}
	if (e->metrics[TREC_METRIC_TRACES_SENT_DELTA] != deltas ||
	    e->delta_result != TREC_DELTA_WHOLE) {
		*why = "a trace was sent as a delta of one the ring buffer refused";
		return false;
	}
	return true;
}

static bool lost_base_caught(struct harness_env *e, const struct harness_case *c,
			     const struct trec_trace *want, const char **why)
{
	struct trec_trace *base;

	harness_lose_next();
	if (harness_unwind(e, &c->regs, c->pid, c->tid) != 0) {
		*why = "no trace sent (lost base)";
		return false;
	}
	/* What trecord still has is an older trace: poisoned, so that a
	 * delta completed from it could not pass for the right stack. */
	base = harness_delta_base();
	for (uint32_t i = 1; base && i < base->num_frames && i < TREC_MAX_FRAMES; i++)
		base->frames[i].addr_or_line ^= 0x5a5a5a5a;
	if (harness_unwind(e, &c->regs, c->pid, c->tid) != 0 || !leaf_only(e, want)) {
		*why = "a delta whose base was lost was not cut to its leaf with DELTA_NO_BASE";
		return false;
	}
	/* No base until a whole trace: leaf-only deltas, then that trace. */
	for (int i = 0; i <= TREC_DELTA_WHOLE_EVERY && e->delta_result != TREC_DELTA_WHOLE; i++) {
		if (harness_unwind(e, &c->regs, c->pid, c->tid) != 0 ||
		    (e->delta_result == TREC_DELTA_WHOLE ? memcmp(want, &e->trace, sizeof(*want)) != 0
							 : !leaf_only(e, want))) {
			*why = "after a lost base, a trace neither leaf-only nor the whole stack";
			return false;
		}
	}
	if (e->delta_result != TREC_DELTA_WHOLE) {
		*why = "after a lost base, no whole trace within TREC_DELTA_WHOLE_EVERY sends";
		return false;
	}
	if (!unwind_same(e, c, want) || e->delta_result != TREC_DELTA_REBUILT) {
		*why = "after a whole trace, the next delta was not rebuilt to the same trace";
		return false;
	}
	return true;
}

bool harness_delta_check(struct harness_env *e, const struct harness_case *c,
			 const struct trec_trace *want, bool *lost_base_seen, const char **why)
{
	*lost_base_seen = false;
	if (!refused_send_not_extended(e, c, want, why))
		return false;
	/* A whole trace again, then its replay, sent as a delta. */
	if (!unwind_same(e, c, want) || e->delta_result != TREC_DELTA_REBUILT) {
		*why = "a replayed sample after a whole one was not a rebuilt delta of the same trace";
		return false;
	}
	if (!lost_base_caught(e, c, want, why))
		return false;
	*lost_base_seen = true;
	return true;
}
