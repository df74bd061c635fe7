/* SPDX-License-Identifier: MIT */
/*
 * The unwinder's cursor, kept in the per-CPU record between tail calls.
 * Shared by the native unwinder (bpf/native_unwind.h), the program glue
 * (bpf/trec.bpf.c) and the offline harness (tests/harness/).
 */
#ifndef TREC_UNWIND_STATE_H
#define TREC_UNWIND_STATE_H

#include "trec_types.h"

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
	/* Set by a failing step: the error for the abort frame and the metric
	 * to bump when the trace is sent. -1 = none. */
	__s32 error_metric;
	__u32 unwind_error; /* enum trec_error */
};

#endif /* TREC_UNWIND_STATE_H */
