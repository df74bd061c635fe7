/* SPDX-License-Identifier: MIT */
/*
 * The frames of a stack as the stack-shaped outputs show them (folded,
 * flame graph, JSON, diff): root first, one frame per function with
 * inlined functions as frames of their own, and the names
 * stackcollapse-perf.pl would give: an unresolved address is "[dso
 * basename]" (or "[unknown]"), a Python frame "function (file.py:line)",
 * an error frame "[error: NAME]". Each symbol is named once and cached.
 */
#ifndef RP_FRAME_NAMES_H
#define RP_FRAME_NAMES_H

#include "report/output/output.h"

/* What a frame is; the flame graph colours by it, JSON prints its name. */
enum rp_fkind {
	RP_FK_ROOT = 0, /* the process frame (comm), the flame graph's "all" */
	RP_FK_NATIVE,   /* a function in an ELF file (resolved or not) */
	RP_FK_INLINED,  /* a function inlined into the frame below it */
	RP_FK_KERNEL,
	RP_FK_INTERP,   /* an interpreted frame */
	RP_FK_ERROR,    /* where unwinding stopped, and why */
	RP_FK_COUNT
};

struct rp_nframe {
	uint32_t name; /* string ids in the model's table */
	uint32_t dso;  /* path, "[kernel.kallsyms]", "[unknown]"; 0 for the root */
	uint32_t file; /* source file, 0: unknown */
	uint32_t line; /* 0: unknown */
	uint8_t kind;  /* enum rp_fkind */
	uint8_t lang;  /* RP_FK_INTERP: the frame kind (report/interp/interp.h) */
};

/* "process", "native", "inlined", "kernel", "error", or for an
 * interpreted frame its interpreter's: "python", "perl", "ruby", "php". */
const char *rp_nframe_kind_name(const struct rp_nframe *f);

struct rp_namer;

struct rp_namer *rp_namer_new(const struct rp_report *r);
void rp_namer_free(struct rp_namer *n);

/*
 * The frames of aggregate a, root first: [0] is the process, named by its
 * comm (":PID" without one; "comm-PID" with --folded-pid, "comm-PID/TID"
 * with --folded-tid), then outermost to leaf. *out stays valid until the
 * next call. Returns the count (>= 1).
 */
uint32_t rp_namer_stack(struct rp_namer *n, const struct rp_agg *a, const struct rp_nframe **out);

#endif /* RP_FRAME_NAMES_H */
