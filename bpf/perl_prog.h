/* SPDX-License-Identifier: MIT */
/*
 * The Perl unwinder program, for slot TREC_PROG_UNWIND_PERL of
 * unwinder_progs (and, as trec_unwind_perl_offcpu, of offcpu_progs).
 * bpf/trec.bpf.c includes this after native_unwind.h;
 * trecord puts the program's fd in the slot and fills perl_procs and
 * interpreter_offsets (record/interp/perl/perl_session.c).
 */
#ifndef TREC_PERL_PROG_H
#define TREC_PERL_PROG_H

#include "perl_unwind.h"

TREC_UNWINDER(trec_unwind_perl)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();

	if (!rec)
		return 0;
	tail_call(ctx, progs, rec, trec_perl_walk(rec));
	return 0;
}

#endif /* TREC_PERL_PROG_H */
