/* SPDX-License-Identifier: MIT */
/*
 * The Python unwinder program, for slot TREC_PROG_UNWIND_PYTHON of
 * unwinder_progs. bpf/trec.bpf.c includes this after native_unwind.h (it
 * uses tracemgmt.h's get_per_cpu_record() and tail_call()); trecord puts
 * the program's fd in the slot and fills py_procs and interpreter_offsets
 * (record/interp/python/python_sync.h).
 */
#ifndef TREC_PYTHON_PROG_H
#define TREC_PYTHON_PROG_H

#include "python_unwind.h"

/*
 * 3.8-3.10: a Python frame, then the native frames up to the next eval
 * loop frame (unwind_native_step, from trec.bpf.c), then that eval loop's
 * Python frame, and so on, all in this one program run: true order at one
 * tail call per few Python frames. Returns the next program.
 */
static __always_inline int trec_py_old_walk(void *ctx, struct trec_per_cpu_record *rec,
					    const struct trec_py_proc_info *info)
{
	int next = TREC_PROG_UNWIND_STOP;

	for (int i = 0; i < TREC_PY_OLD_FRAMES_PER_PROGRAM; i++) {
		next = trec_py_old_step(rec, info);
		for (int j = 0; j < TREC_PY_OLD_NATIVE_STEPS && next == TREC_PROG_UNWIND_NATIVE; j++)
			next = unwind_native_step(ctx, rec);
		if (next != TREC_PROG_UNWIND_PYTHON)
			return next;
	}
	return next;
}

TREC_UNWINDER(trec_unwind_python)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();
	const struct trec_py_proc_info *info;
	__u32 pid;

	if (!rec)
		return 0;
	pid = rec->trace.pid;
	info = bpf_map_lookup_elem(&py_procs, &pid);
	if (info && info->entry_kind == TREC_PY_ENTRY_EVERY_FRAME)
		tail_call(ctx, progs, rec, trec_py_old_walk(ctx, rec, info));
	else
		tail_call(ctx, progs, rec, trec_python_walk(rec));
	return 0;
}

#endif /* TREC_PYTHON_PROG_H */
