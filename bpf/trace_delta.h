/* SPDX-License-Identifier: MIT */
/*
 * Trace deltas: a trace that replayed its outer frames (stack_replay.h)
 * from frame f on has, from f on, exactly the frames of the trace before
 * it on this CPU, which are still in the per-CPU record. If that trace
 * went to the ring buffer, trecord has them too: this one is sent as a
 * TREC_MSG_TRACE_DELTA with its header and frames 0..f-1 only, and
 * trecord (record/io/trace_delta.c) takes frames f.. from the trace whose
 * seq is one less on the same cpu. A deep stack then costs the ring
 * buffer a few frames instead of 6 KB.
 *
 * Only when the previous send from the record succeeded (a ring buffer
 * that was full lost the base): delta_base, handed over by trace_reset
 * like replay_from. If trecord still misses the base, it says so in the
 * sample (DELTA_NO_BASE) rather than guess, until the CPU's next whole
 * trace.
 *
 * Included by tracemgmt.h after output_trace.
 */
#ifndef TREC_TRACE_DELTA_H
#define TREC_TRACE_DELTA_H

/* Cleared by trecord for TREC_NO_TRACE_DELTA=1: every trace sent whole. */
TREC_RODATA(bool, trace_deltas, true);

/* Sends the record's finished trace, as a delta where it can. */
static __always_inline void send_record_trace(struct trec_per_cpu_record *rec)
{
	struct trec_trace *t = &rec->trace;
	__u32 at = rec->state.replay_at;
	int err;

	/* 0 means "not from the record": skipped when the count wraps. */
	if (!++rec->trace_seq)
		rec->trace_seq = 1;
	t->seq = rec->trace_seq;
	if (trace_deltas && rec->state.delta_base && at && at < t->num_frames &&
	    t->seq % TREC_DELTA_WHOLE_EVERY) {
		t->msg_type = TREC_MSG_TRACE_DELTA;
		t->delta_frames = at;
		err = ringbuf_send(t, at);
		if (!err)
			increment_metric(TREC_METRIC_TRACES_SENT_DELTA);
	} else {
		err = output_trace(t);
	}
	rec->last_sent = !err;
}

#endif /* TREC_TRACE_DELTA_H */
