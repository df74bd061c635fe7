/* SPDX-License-Identifier: MIT */
/*
 * The Ruby unwinder program, for slot TREC_PROG_UNWIND_RUBY of
 * unwinder_progs. bpf/trec.bpf.c includes this after python_prog.h (it
 * uses tracemgmt.h's get_per_cpu_record() and tail_call(), and
 * python_unwind.h's thread pointer); trecord puts the program's fd in the
 * slot and fills ruby_procs and interpreter_offsets
 * (record/interp/ruby/ruby_sync.h).
 */
#ifndef TREC_RUBY_PROG_H
#define TREC_RUBY_PROG_H

#include "ruby_unwind.h"

TREC_UNWINDER(trec_unwind_ruby)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();

	if (!rec)
		return 0;
	tail_call(ctx, progs, rec, trec_ruby_walk(rec));
	return 0;
}

#endif /* TREC_RUBY_PROG_H */
