/* SPDX-License-Identifier: MIT */
/*
 * The Perl part of a harness case: fills interpreter_offsets and
 * perl_procs with trecord's own code, names the Perl frames of the trace
 * as trecord and treport do (descriptions read from the process's memory,
 * looked up by report/interp/perl/perl_frames.c), and checks them against
 * the stack the script wrote from caller() (the case's "pyframe" lines:
 * an interpreter's own view of its stack, innermost first).
 */
#ifndef TREC_HARNESS_PERL_H
#define TREC_HARNESS_PERL_H

#include <stdbool.h>
#include <stddef.h>
#include "harness_case.h"

struct harness_perl;

struct harness_perl *harness_perl_new(struct harness_env *env);
void harness_perl_free(struct harness_perl *p);

/* Live process (pid sync's exec_mapping op): trecord's Perl table. */
int harness_perl_on_mapping(struct harness_perl *p, uint32_t pid, uint64_t file_id,
			    const char *open_path, uint64_t bias);
/* Process gone: the same detection from the case's mapping of path, with
 * libc's TSD layout from the case's mapped files. */
int harness_perl_case_mapping(struct harness_perl *p, const struct harness_case *c,
			      uint64_t file_id, const char *path, uint64_t bias);

/* Whether a Perl interpreter was found (perl_procs has an entry). */
bool harness_perl_found(const struct harness_perl *p);

/*
 * The Perl verdict for the trace the program sent: its Perl frames,
 * described from the live process or the captured memory, must equal the
 * script's own stack (function, file, line, in order), each run of them
 * right before a Perl_runops_standard frame of gdb's backtrace (its first
 * ng frames) and ending where the script says C code entered; one run per
 * such frame. Prints one PASS/FAIL line and the trace; true on PASS.
 * *frames gets the number of Perl frames.
 */
bool harness_perl_check(struct harness_perl *p, const struct harness_case *c,
			const struct trec_trace *t, size_t ng, bool live, const char *name,
			size_t *frames);

#endif /* TREC_HARNESS_PERL_H */
