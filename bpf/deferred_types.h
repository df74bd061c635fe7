/* SPDX-License-Identifier: MIT */
/*
 * Deferred unwinding: the message BPF sends instead of a trace when the
 * native walk reaches a file whose stack deltas are still loading. It holds
 * the trace so far, the cursor and a copy of the user stack from the
 * cursor's sp; trecord resumes the walk over that copy with the same
 * unwinder C (record/unwind/deferred/deferred_walk.c) once the deltas are in, and
 * writes the result as an ordinary trace.
 */
#ifndef TREC_DEFERRED_TYPES_H
#define TREC_DEFERRED_TYPES_H

#include "trec_types.h"
#include "unwind_state.h"

/* Stack bytes copied (perf's dwarf mode: 8 KiB by default, at most
 * 65528; cc1's stacks in a compile reach past 32 KiB). Only samples in
 * files still loading pay for the copy. */
#define TREC_DEFER_STACK_BYTES 65536
/* The copy starts this far below sp: rules BPF runs on live memory may
 * read a little below it (a leaf's saved rbp in an epilogue). */
#define TREC_DEFER_BELOW_SP 256

/* file_id -> 1 while the file's deltas are queued or loading: only pcs of
 * those files are deferred (a page that will never come is not waited
 * for). */
#define TREC_DEFER_MAX_FILES 1024

/* The process was not synced yet (NO_PID_INFO): the cursor is the first
 * pc no VMA lookup resolved (the leaf, or a caller of frames in files
 * known from other processes, already in the trace), mappings_pid is 0;
 * trecord resumes it once the pid's maps are read, from that pc's lookup
 * on. */
#define TREC_DEFER_F_NO_PID 1

/* Deferrals stop while this much waits in the ring buffer: a burst (-a at
 * a high rate while a big file loads) must leave room for whole traces
 * (trecord sizes the ring at twice this or more: record/bpf_map_sizes.c). */
#define TREC_DEFER_MAX_RING_BACKLOG (4U << 20)

struct trec_deferred_msg {
	__u32 msg_type;     /* TREC_MSG_DEFERRED */
	__u32 stack_len;    /* bytes of stack[] valid, copied from stack_base */
	__u32 mappings_pid; /* whose trie entries resolve the pcs */
	__u32 flags;        /* TREC_DEFER_F_* */
	__u64 stack_base;   /* state.sp - TREC_DEFER_BELOW_SP, or the next page up
			     * if that one is absent (never touched yet) */
	/* The cursor at the frame whose deltas were missing; the trace does
	 * not hold that frame yet (the resumed walk pushes it). */
	struct trec_unwind_state state;
	struct trec_trace trace; /* num_frames frames are valid */
	/* Last: the reader keeps only stack_len bytes of it. */
	__u8 stack[TREC_DEFER_STACK_BYTES];
};

#endif /* TREC_DEFERRED_TYPES_H */
