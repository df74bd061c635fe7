/* SPDX-License-Identifier: MIT */
/*
 * Deferred unwinding, BPF half (the message: deferred_types.h). A pc whose
 * file's deltas are still loading (defer_files) ends the walk with a copy
 * of the stack instead of a frame-pointer guess; if the copy cannot be
 * sent, the walk goes on with the frame-pointer fallback as before.
 * Included by native_unwind.h before fp_unwind.h.
 */
#ifndef TREC_DEFERRED_H
#define TREC_DEFERRED_H

#include "deferred_types.h"

/* Set by trecord (off with --no-deferred-unwind). */
TREC_RODATA(bool, defer_enabled, false);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TREC_DEFER_MAX_FILES);
	__type(key, __u64);
	__type(value, __u8);
} defer_files SEC(".maps");

/* Whether the missing page of st's file is worth deferring for. */
static __always_inline bool defer_wanted(struct trec_unwind_state *st)
{
	return defer_enabled && !st->defer_refused && st->text_file_id &&
	       bpf_map_lookup_elem(&defer_files, &st->text_file_id);
}

#ifndef TREC_TESTING_OFFLINE
/*
 * The message is built here, then only its used bytes go to the ring: a
 * reservation of the whole message (64 KiB of stack room) per deferral
 * filled the ring's deferral backlog after about 60 of them, where most
 * stacks copied are a few KiB (40 short processes started at once lost
 * half their first samples). A slot per CPU, as a per-CPU array cannot
 * hold a value this big: trecord sets max_entries to the possible CPUs.
 * Only the sampler defers, and it does not nest on a CPU.
 */
struct trec_defer_scratch {
	struct trec_deferred_msg msg;
	/* defer_copy_stack's halving: pages readable (lo) and not (hi). In
	 * the map, where the verifier keeps no values: as constants in
	 * registers, each of the 16 ways through the halvings, and the send
	 * after them, was checked apart (2.6k instructions per program). */
	__u64 lo, hi;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trec_defer_scratch);
} defer_scratch SEC(".maps");

/*
 * Copies the stack from s->msg.stack_base into s->msg.stack: all
 * TREC_DEFER_STACK_BYTES if mapped, else up to the end of the first
 * readable page plus the most whole pages that are (the top of a stack),
 * found by halving. The page of the base itself may be absent (below sp,
 * never touched yet): the copy then starts at the next page if that is at
 * or below sp, and the base moves there. The bytes copied, 0 if none.
 */
static __always_inline __u32 defer_copy_stack(struct trec_defer_scratch *s, __u64 sp)
{
	__u8 *dst = s->msg.stack;
	__u64 *base = &s->msg.stack_base;
	__u64 from = *base, to_page_end = 4096 - (from & 4095);
	__u64 len = TREC_DEFER_STACK_BYTES;

	if (!bpf_probe_read_user(dst, len, (const void *)(unsigned long)from))
		return len;
	if (bpf_probe_read_user(dst, to_page_end, (const void *)(unsigned long)from)) {
		from += to_page_end;
		to_page_end = 4096;
		if (from > sp || bpf_probe_read_user(dst, 4096, (const void *)(unsigned long)from))
			return 0;
		*base = from;
	}
	/* lo more pages readable, hi not (a full copy failed from the
	 * original base; from a moved one 16 pages are tried too): 4
	 * halvings for 16. */
	s->lo = 0;
	s->hi = TREC_DEFER_STACK_BYTES / 4096;
	for (int i = 0; i < 4 && s->lo + 1 < s->hi; i++) {
		__u64 mid = (s->lo + s->hi) / 2;

		len = to_page_end + mid * 4096;
		if (len > TREC_DEFER_STACK_BYTES)
			len = TREC_DEFER_STACK_BYTES;
		if (bpf_probe_read_user(dst, len, (const void *)(unsigned long)from))
			s->hi = mid;
		else
			s->lo = mid;
	}
	len = to_page_end + s->lo * 4096;
	if (len > TREC_DEFER_STACK_BYTES)
		len = TREC_DEFER_STACK_BYTES;
	/* The last successful read may not be the last one made. */
	if (bpf_probe_read_user(dst, len, (const void *)(unsigned long)from))
		return 0;
	return len;
}

/* Sends the trace so far, the cursor and the stack copy. 0 if sent. A
 * subprogram (TREC_SUBPROG): its copy's probe reads are verified once. */
TREC_SUBPROG int defer_send(struct trec_per_cpu_record *rec, __u32 flags)
{
	struct trec_unwind_state *st;
	struct trec_defer_scratch *s;
	struct trec_deferred_msg *m;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 len;

	if (!rec)
		return -1;
	st = &rec->state;

	if (bpf_ringbuf_query(&trace_events, BPF_RB_AVAIL_DATA) >= TREC_DEFER_MAX_RING_BACKLOG)
		return -1;
	s = bpf_map_lookup_elem(&defer_scratch, &cpu);
	if (!s)
		return -1;
	m = &s->msg;
	m->stack_base = st->sp - TREC_DEFER_BELOW_SP;
	len = defer_copy_stack(s, st->sp);
	if (!len || len > TREC_DEFER_STACK_BYTES)
		return -1;
	m->msg_type = TREC_MSG_DEFERRED;
	m->stack_len = len;
	m->mappings_pid = rec->mappings_pid;
	m->flags = flags;
	bpf_probe_read_kernel(&m->state, sizeof(m->state), st);
	bpf_probe_read_kernel(&m->trace, sizeof(m->trace), &rec->trace);
	if (bpf_ringbuf_output(&trace_events, m, offsetof(struct trec_deferred_msg, stack) + len, 0))
		return -1;
	if (st->native_frames)
		add_metric(TREC_METRIC_NATIVE_FRAMES, st->native_frames);
	budget_charge(rec); /* the send included */
	return 0;
}
#else
/* Offline (trecord's resumed walk, the harness): the walk just stops. */
static __always_inline int defer_send(struct trec_per_cpu_record *rec, __u32 flags)
{
	(void)rec, (void)flags;
	return 0;
}
#endif

/*
 * After a failed step. If it failed to be deferred, the frame it could
 * not step from is taken back (the resumed walk, or the retry, pushes it
 * again) and the deferral is sent: the trace is done (st->deferred: not
 * sent as a trace). If it cannot be, true: the walk runs the step again,
 * without deferral (the frame-pointer fallback). A retry rather than a
 * second step here keeps the step inlined once.
 */
static __always_inline bool defer_or_retry(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;

	if (!st->defer_pending)
		return false;
	st->defer_pending = 0;
	rec->trace.num_frames--;
	st->native_frames--;
	/* Off-CPU stacks wait in offcpu_pending for their end: not deferred. */
	if (!(rec->trace.flags & TREC_TRACE_F_OFFCPU)) {
		if (!defer_send(rec, 0)) {
			st->deferred = 1;
			increment_metric(TREC_METRIC_DEFERRED_SENT);
			return false;
		}
		increment_metric(TREC_METRIC_DEFERRED_LOST);
	}
	st->defer_refused = 1;
	st->unwind_error = TREC_ERR_OK;
	st->error_metric = -1;
	return true;
}

/*
 * For a sample of a process trecord has not synced (no trie entries), at
 * the first pc whose file no VMA lookup knows: the walk is deferred from
 * there (TREC_DEFER_F_NO_PID) instead of ending at once in NO_PID_INFO.
 * Usually that is the leaf; it is a caller when the frames below it are
 * in files known from other processes (the vdso). True if sent: the
 * trace is done.
 */
static __always_inline bool defer_no_pid(struct trec_per_cpu_record *rec)
{
	/* Offline, the resumed walk checks the pid itself. */
#ifndef TREC_TESTING_OFFLINE
	if (defer_enabled && !(rec->trace.flags & TREC_TRACE_F_OFFCPU)) {
		if (!defer_send(rec, TREC_DEFER_F_NO_PID)) {
			rec->state.deferred = 1;
			increment_metric(TREC_METRIC_DEFERRED_SENT);
			increment_metric(TREC_METRIC_DEFERRED_NO_PID);
			return true;
		}
		increment_metric(TREC_METRIC_DEFERRED_LOST);
	}
#endif
	(void)rec;
	return false;
}

#endif /* TREC_DEFERRED_H */
