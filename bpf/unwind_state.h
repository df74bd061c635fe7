/* SPDX-License-Identifier: MIT */
/*
 * The unwinder's cursor, kept in the per-CPU record between tail calls.
 * Shared by the native unwinder (bpf/native_unwind.h), the program glue
 * (bpf/trec.bpf.c) and the offline harness (tests/harness/).
 */
#ifndef TREC_UNWIND_STATE_H
#define TREC_UNWIND_STATE_H

#include "trec_types.h"

/* Bytes of the stack read at once, at most (a power of two). The walk's
 * reads stop at the end of their page (bpf/native_unwind.h's
 * read_stack_window: at least 4096 bytes on every architecture); the
 * replay's check reads across pages the last walk read
 * (bpf/stack_replay.h's replay_read_window). 64 KiB: a probe read costs
 * about 80 ns before its bytes, and `chain`'s 250 frames span 50 KiB (4
 * reads at 16 KiB). The window is the per-CPU record's
 * (trec_per_cpu_record.win), not this cursor's. */
#define TREC_PAGE_SIZE 4096
#define TREC_STACK_WINDOW 65536

struct trec_unwind_state {
	__u64 pc, sp, fp; /* rip, rsp, rbp on x86-64; pc, sp, x29 on arm64 */
	__u64 cfa;
	/* Leaf-only registers some CFA rules need (hand-written asm). */
	__u64 rax, r9, r11, r15;
	/* arm64: the link register (x30), where a leaf's return address
	 * still is; valid at the leaf and after a signal frame only. */
	__u64 lr;

	/* Resolved by the caller for the current pc (LPM trie lookup). */
	__u64 text_file_id;
	__u64 text_offset; /* pc - bias: ELF vaddr */
	__u64 text_bias;

	/* The lowest sp of the stack being walked (the leaf's, or the context
	 * a signal frame restored): frame pointers stay near it. */
	__u64 stack_lo;

	/* pc is a return address (every frame but the leaf, and not right
	 * after a signal frame): delta lookups use pc - 1. */
	__u8 return_address;
	/* This frame's code is walked by frame pointer (LPM selector). */
	__u8 fp_frame;
	/* fp was read from a frame record by the last step: 0 there ends
	 * the chain (Go's goexit, a thread's first frame). */
	__u8 fp_chain;
	/* This frame's code is anonymous memory unwound by stack deltas
	 * (TREC_UNWIND_ANON_DELTAS): its frame is a raw pc. */
	__u8 anon_code;
	__u8 lr_valid; /* lr holds the frame's return address (arm64) */
	__u8 stack_switches; /* Go stack switches taken (fp_unwind.h) */
	__u8 go_code; /* This frame's code is Go's (TREC_UNWIND_GO) */
	/* Deferred unwinding (deferred.h): the step stopped to be deferred;
	 * the trace went to userspace as a deferral; deferring failed once. */
	__u8 defer_pending, deferred, defer_refused;
	/* Stack replay (bpf/stack_replay.h): logging this walk into replay
	 * log replay_idx; the last trace on this CPU may be replayed; a
	 * replay was tried; the walk ended at a STOP rule. */
	__u8 replay_logging, replay_from, replay_tried, replay_stopped, replay_idx;
	/* Trace deltas (bpf/trace_delta.h): the previous trace on this CPU
	 * went to the ring buffer from the record; the frame a replay kept
	 * the previous trace's frames from (0: none). */
	__u8 delta_base;
	/* Quiet replay (stack_replay.h): this walk logs its cursors only. */
	__u8 replay_cursors_only;
	/* The stack word fp was last restored from, not logged for the
	 * replay until a rule reads fp (replay_note_fp_word, x86). */
	__u8 fp_word_pending;
	__u64 fp_word_addr, fp_word_val;
	__u16 replay_at;
	/* Set by a failing step: the error for the abort frame and the metric
	 * to bump when the trace is sent. -1 = none. */
	__s32 error_metric;
	__u32 unwind_error; /* enum trec_error */

	/* Per-trace memos of map lookups, which the frames of one stack
	 * repeat (a recursion: every frame; a library: its pages). The maps
	 * do not change under one trace, and the record is cleared per trace.
	 *   memo_text_*   the 4 KiB page (+ 1; 0: none) of the last pc the
	 *                 trie resolved: one mapping holds a whole page
	 *   memo_delta_*  the last delta found, by (file, lookup address)
	 *   memo_page_*   the last stack_delta_pages value, by (file, page)
	 *   memo_no_interp  a file interpreter_offsets does not have */
	__u64 memo_text_page, memo_text_file_id, memo_text_bias_and_unwinder;
	__u64 memo_delta_file, memo_delta_addr;
	__u64 memo_page_file, memo_page;
	__u32 memo_page_first, memo_page_num;
	__u64 memo_no_interp;
	__u16 memo_delta_info;
	__u16 native_frames; /* NATIVE_FRAMES, added once per trace */

	/* A replay may follow (stack_replay.h): the end of the words the last
	 * walk read, which the first window may reach across pages (0: none). */
	__u64 win_hint_hi;
	/* The record's window of stack memory read at once (native_unwind.h's
	 * read_stack_u64; trec_per_cpu_record.win): a frame's return address
	 * and saved rbp, and often its callers', come from one read. win_base
	 * 0: empty; win_len bytes valid. */
	__u64 win_base;
	__u32 win_len;
};

#endif /* TREC_UNWIND_STATE_H */
