/* SPDX-License-Identifier: MIT */
/*
 * The Python unwinder program, for slot TREC_PROG_UNWIND_PYTHON of
 * unwinder_progs (and, as trec_unwind_python_offcpu, of offcpu_progs).
 * bpf/trec.bpf.c includes this after native_unwind.h (it
 * uses tracemgmt.h's get_per_cpu_record() and tail_call(), and
 * trec.bpf.c's native step); trecord loads it on first need and puts
 * the program's fd in the slot and fills py_procs and interpreter_offsets
 * (record/interp/python/python_sync.h).
 */
#ifndef TREC_PYTHON_PROG_H
#define TREC_PYTHON_PROG_H

#include "python_unwind.h"

/*
 * One step of a mixed stack: Python frames (3.11+: a run of them; 3.8-3.10:
 * one), or one native frame (the C between two runs: the eval loop, calls
 * through C). Both in one bpf_loop, so a deep chain of Python -> C ->
 * Python calls costs no tail call per transition (a 113-frame import chain
 * used to end in MAX_TAIL_CALLS), and the verifier checks the step once.
 * The loop ends when another unwinder or the end comes.
 */
struct python_loop {
	struct native_loop n;
	const struct trec_py_proc_info *info; /* NULL: 3.11+ */
};

static long python_loop_step(__u64 i, void *arg)
{
	struct python_loop *l = arg;
	struct trec_per_cpu_record *rec = l->n.rec;
	int next;

	if (rec->loop_next != TREC_PROG_UNWIND_PYTHON)
		/* An unsynced process's C frames past its leaf are not
		 * deferred here: this call chain is at the 512-byte stack
		 * limit (defer_no_pid's call took it to 528). */
		next = unwind_native_step_opt(l->n.ctx, rec, false);
	else if (l->info)
		next = trec_py_old_step(rec, l->info);
	else
		next = trec_python_walk(rec);
	rec->loop_next = next;
	return next != TREC_PROG_UNWIND_NATIVE && next != TREC_PROG_UNWIND_PYTHON;
}

TREC_UNWINDER(trec_unwind_python)
{
	struct python_loop l = {
		.n = {
			.ctx = ctx,
			.rec = get_per_cpu_record(),
		},
	};
	const struct trec_py_proc_info *info;

	if (!l.n.rec)
		return 0;
	l.n.rec->loop_next = TREC_PROG_UNWIND_PYTHON;
	/* The key read in place, not copied to this frame: the program's
	 * chain of frames must stay within BPF's 512 bytes. */
	info = bpf_map_lookup_elem(&py_procs, &l.n.rec->trace.pid);
	if (info && info->entry_kind == TREC_PY_ENTRY_EVERY_FRAME)
		l.info = info;
	/* Every step but a run's hand-back pushes a frame: twice the frame
	 * limit always reaches the end. */
	bpf_loop(2 * TREC_MAX_FRAMES, python_loop_step, &l, 0);
	tail_call(ctx, progs, l.n.rec, l.n.rec->loop_next);
	return 0;
}

#endif /* TREC_PYTHON_PROG_H */
