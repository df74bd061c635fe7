/* SPDX-License-Identifier: MIT */
/*
 * The frame-pointer unwinder, for code that has no CFI but keeps rbp as a
 * frame pointer: JIT code (V8, HotSpot with -XX:+PreserveFramePointer),
 * Go (gc keeps frame pointers on amd64 and emits no .eh_frame), V8's
 * embedded builtins. A frame that set up rbp has its frame record at rbp:
 *
 *   *(fp)     the caller's fp        caller's sp = fp + 16
 *   *(fp + 8) the return address
 *
 * One step per frame, run by trec_unwind_one_frame() for frames whose
 * mapping selects TREC_UNWIND_FRAME_POINTER and for the
 * TREC_CMD_FRAME_POINTER delta command. It shares the native program's
 * loop, so a stack that alternates JIT and CFI'd code costs no tail call
 * per transition. Transitions work both ways because the CFI rules track
 * rbp: after a delta step st->fp is the caller's rbp.
 *
 * Like perf -g, the chain starts at the sampled rbp: a leaf in a prologue
 * or epilogue (rbp still its caller's) loses its caller, nothing else.
 * The chain stays on one stack, but for Go's switches to the g0 stack
 * (TREC_CMD_GO_SWITCH_FP, record/unwind/go_roots.c).
 * Included by native_unwind.h.
 */
#ifndef TREC_FP_UNWIND_H
#define TREC_FP_UNWIND_H

/* A chain never climbs more than this above the sp the walk started from:
 * thread stacks are 8 MiB by default; further up is another mapping. */
#define TREC_FP_MAX_STACK (256ULL << 20)

/* The frame record at st->fp -> the caller's cursor. *stop at the end of
 * the chain, the ABI's fp 0: read from a frame record (Go's goexit, thread
 * starts) or at the leaf (a process's first instructions). After a CFI
 * step it is an error: the CFI'd callee may have clobbered it. */
/* Stack switches one trace may take (Go: goroutine -> g0 -> goroutine is
 * one; more is a loop through garbage). */
#define TREC_FP_MAX_SWITCHES 2

/* A subprogram (TREC_SUBPROG): one body for its four callers. */
TREC_SUBPROG int trec_fp_step_on(struct trec_unwind_state *st, bool *stop, bool may_switch)
{
	struct {
		__u64 fp, ra;
	} rec;
	__u64 fp;

	if (!st || !stop)
		return -1;
	fp = st->fp;

	/* At the leaf, Go around a duffzero/duffcopy call (before the call or
	 * right after it) has rbp at a record it made 16 below sp for the
	 * callee; its first word is the leaf's own frame pointer. */
	if (fp && st->go_code && !st->return_address && fp + 16 == st->sp &&
	    bpf_probe_read_user(&fp, sizeof(fp), (const void *)(unsigned long)fp))
		return set_error(st, TREC_ERR_FP_RECORD_READ, TREC_METRIC_FP_RECORD_READ);
	if (fp == 0) {
		if (!st->fp_chain && st->return_address)
			return set_error(st, TREC_ERR_FP_ZERO, TREC_METRIC_FP_ZERO);
		*stop = true;
		increment_metric(TREC_METRIC_FP_STOPPED);
		return 0;
	}
	if (fp & 7)
		return set_error(st, TREC_ERR_FP_MISALIGNED, TREC_METRIC_FP_MISALIGNED);
	/* A frame record lies above its frame's sp, so above every callee's:
	 * this also keeps the chain strictly increasing (sp becomes fp + 16).
	 * One exception, at the leaf: Go calls duffzero/duffcopy, which set up
	 * no frame, with a record it wrote right below its sp, whose second
	 * word is the return address the call pushed (fp = sp - 8). */
	if (may_switch && (fp < st->sp || fp + 8 - st->stack_lo >= TREC_FP_MAX_STACK) &&
	    st->stack_switches < TREC_FP_MAX_SWITCHES) {
		/* Go's vdso calls: the frames below were on the g0 stack, this
		 * record is on the goroutine's. The chain goes on from there. */
		st->stack_switches++;
		st->stack_lo = st->sp = fp;
		increment_metric(TREC_METRIC_GO_STACK_SWITCHES);
	}
	if (fp < st->sp && !(fp + 8 == st->sp && !st->return_address))
		return set_error(st, TREC_ERR_FP_BELOW_SP, TREC_METRIC_FP_BELOW_SP);
	if (fp + 8 - st->stack_lo >= TREC_FP_MAX_STACK) /* fp + 8 >= sp >= stack_lo */
		return set_error(st, TREC_ERR_FP_OUTSIDE_STACK, TREC_METRIC_FP_OUTSIDE_STACK);
	if (bpf_probe_read_user(&rec, sizeof(rec), (const void *)(unsigned long)fp))
		return set_error(st, TREC_ERR_FP_RECORD_READ, TREC_METRIC_FP_RECORD_READ);
	if (rec.ra < TREC_MIN_USER_PC || (rec.ra >> 63))
		return set_error(st, TREC_ERR_FP_BAD_RETURN_ADDRESS,
				 TREC_METRIC_FP_BAD_RETURN_ADDRESS);

	st->cfa = fp + 16;
	st->sp = fp + 16;
	st->pc = rec.ra;
	st->fp = rec.fp;
	st->rax = st->r9 = st->r11 = st->r15 = 0;
	st->return_address = 1;
	st->fp_chain = 1;
	increment_metric(TREC_METRIC_FP_FRAMES);
	return 0;
}

static __always_inline int trec_fp_step(struct trec_unwind_state *st, bool *stop)
{
	return trec_fp_step_on(st, stop, false);
}

/*
 * A pc whose file is known but whose delta page is not loaded (a big file's
 * deltas load for a second or so after it is first mapped): one checked
 * frame-pointer step, as perf -g would take, rather than ending the stack.
 * If the step fails, or would end the stack at fp 0 (we cannot tell an
 * end from a frame without rbp here, but in Go code), the error stays NO_PAGE_INFO, the
 * cause worth seeing.
 */
static __always_inline int trec_fp_fallback(struct trec_unwind_state *st, bool *stop)
{
	/* Still loading: defer the walk rather than guess (deferred.h); not
	 * Go code, whose frame pointers are exact and whose chain may leave
	 * the copied stack for the g0 stack. */
	if (!st->go_code && defer_wanted(st))
		st->defer_pending = 1;
	/* Go keeps frame pointers everywhere: there, 0 is the end, and the
	 * chain may go from the g0 stack to the goroutine's (as perf -g). */
	else if ((st->fp || (st->go_code && st->fp_chain)) &&
		 !trec_fp_step_on(st, stop, st->go_code)) {
		increment_metric(TREC_METRIC_NATIVE_FP_FALLBACK);
		return 0;
	}
	st->unwind_error = TREC_ERR_NATIVE_NO_PAGE_INFO;
	st->error_metric = TREC_METRIC_NATIVE_NO_PAGE_INFO;
	return -1;
}

#endif /* TREC_FP_UNWIND_H */
