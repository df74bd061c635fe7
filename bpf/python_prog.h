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

TREC_UNWINDER(trec_unwind_python)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();

	if (!rec)
		return 0;
	tail_call(ctx, progs, rec, trec_python_walk(rec));
	return 0;
}

#endif /* TREC_PYTHON_PROG_H */
