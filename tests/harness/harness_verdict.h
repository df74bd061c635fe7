/* SPDX-License-Identifier: MIT */
/*
 * The interpreter verdict every harness language shares (Python and Ruby
 * in harness_main.c, Perl, PHP): a trace's interpreter frames must equal
 * the script's own stack (function, file, line, in order) and interleave
 * with the native frames as the interpreter runs them: one run of frames
 * right before each interpreter-loop frame of gdb's backtrace, each run
 * ending at a frame C code entered. The language supplies the lookup of a
 * frame's description and what its loop frame is.
 */
#ifndef TREC_HARNESS_VERDICT_H
#define TREC_HARNESS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "harness_case.h"
#include "report/interp/interp.h"

/* An interpreter frame of a trace and the index of the native frame after it. */
struct harness_iframe {
	const struct trec_frame *f;
	size_t next_native;
};

struct harness_lang {
	const char *lang; /* "perl": the PASS/FAIL line's */
	const char *noun; /* "Perl": "N Perl frames", "a Perl frame" */
	const char *loop; /* the loop frame's name, for messages */
	/* f's description: 0, or a negative errno. */
	int (*lookup)(const void *ctx, uint32_t pid, const struct trec_frame *f,
		      struct rp_interp_sym *sym);
	/* Whether gdb's frame i of c is the interpreter loop. */
	bool (*is_loop)(const void *ctx, const struct harness_case *c, size_t i);
	const void *ctx;
};

/* NULL when fr[0..n) pass against c's first ng gdb frames, else why;
 * *runs gets the runs counted. */
const char *harness_runs_verdict(const struct harness_lang *l, const struct harness_case *c,
				 const struct harness_iframe *fr, size_t n, size_t ng,
				 size_t *runs);

/* Prints the PASS line (n frames in runs runs; their code was how, e.g.
 * "described") or the FAIL line with why. Returns !why. */
bool harness_say_verdict(const struct harness_lang *l, const char *name, const char *why,
			 size_t n, size_t runs, const char *how, bool live);

/* The frames, innermost first, each with the native frame after it. */
void harness_print_iframes(const struct harness_lang *l, const struct harness_case *c,
			   const struct harness_iframe *fr, size_t n, size_t ng);

/* The script's own stack, as the case recorded it (after a FAIL). */
void harness_print_script_stack(const struct harness_case *c);

#endif /* TREC_HARNESS_VERDICT_H */
