/* SPDX-License-Identifier: MIT */
/*
 * The PHP unwinder program, for slot TREC_PROG_UNWIND_PHP of
 * unwinder_progs (and, as trec_unwind_php_offcpu, of offcpu_progs). bpf/trec.bpf.c includes this after native_unwind.h;
 * trecord puts the program's fd in the slot and fills php_procs and
 * interpreter_offsets (record/interp/php/php_session.c).
 */
#ifndef TREC_PHP_PROG_H
#define TREC_PHP_PROG_H

#include "php_unwind.h"

TREC_UNWINDER(trec_unwind_php)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();

	if (!rec)
		return 0;
	tail_call(ctx, progs, rec, trec_php_walk(rec));
	return 0;
}

#endif /* TREC_PHP_PROG_H */
