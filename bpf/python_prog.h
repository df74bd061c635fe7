/* SPDX-License-Identifier: MIT */
/*
 * The Python unwinder program, for slot TREC_PROG_UNWIND_PYTHON of
 * unwinder_progs. bpf/trec.bpf.c includes this after native_unwind.h (it
 * uses tracemgmt.h's get_per_cpu_record() and tail_call(), and
 * trec.bpf.c's native step); trecord loads it on first need and puts
 * the program's fd in the slot and fills py_procs and interpreter_offsets
 * (record/interp/python/python_sync.h).
 */
#ifndef TREC_PYTHON_PROG_H
#define TREC_PYTHON_PROG_H

#include "python_unwind.h"

/*
 * One step of a mixed stack: a run of interpreter frames, or one native
 * frame (the C between two runs: the eval loop, calls through C). Both
 * in one loop, so a deep chain of Python -> C -> Python calls costs no
 * tail call per transition (a 113-frame import chain used to end in
 * MAX_TAIL_CALLS). The loop ends when another unwinder or the end comes.
 */
static long python_loop_step(__u64 i, void *arg)
{
	struct native_loop *l = arg;

	if (l->next == TREC_PROG_UNWIND_PYTHON)
		l->next = trec_python_walk(l->rec);
	else
		l->next = unwind_native_step(l->ctx, l->rec);
	return l->next != TREC_PROG_UNWIND_NATIVE && l->next != TREC_PROG_UNWIND_PYTHON;
}

SEC("perf_event")
int trec_unwind_python(void *ctx)
{
	struct native_loop l = {
		.ctx = ctx,
		.rec = get_per_cpu_record(),
		.next = TREC_PROG_UNWIND_PYTHON,
	};

	if (!l.rec)
		return 0;
	/* Every step but a run's hand-back pushes a frame: twice the frame
	 * limit always reaches the end. */
	bpf_loop(2 * TREC_MAX_FRAMES, python_loop_step, &l, 0);
	tail_call(ctx, l.rec, l.next);
	return 0;
}

#endif /* TREC_PYTHON_PROG_H */
