/* SPDX-License-Identifier: MIT */
/* treport's command line. */
#ifndef RP_OPTIONS_H
#define RP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/symbols/symsrc.h"

enum rp_output {
	RP_OUT_SUMMARY = 0,
	RP_OUT_FOLDED,
	RP_OUT_FLAMEGRAPH,
	RP_OUT_JSON,
	RP_OUT_PERF_SCRIPT,
	RP_OUT_PPROF,
	RP_OUT_INFO,
	RP_OUT_PERF_DATA,
	RP_OUT_FIREFOX,
};

#define RP_MAX_FILTER 64

/* Which samples an output shows (perf's event names). */
enum rp_event_kind {
	RP_EVENT_CPU_CLOCK = 0, /* on-CPU samples, weighed in samples */
	RP_EVENT_OFFCPU,        /* off-CPU waits (trecord --off-cpu), weighed in ns */
	RP_EVENT_WALL,          /* both, in ns: a sample counts its period, a wait its
				 * duration, so a thread's total is its lifetime
				 * (less the time it was runnable but preempted) */
};

/* Whether the selected event weighs in nanoseconds (not samples). */
#define RP_EVENT_IN_NS(o) ((o)->event != RP_EVENT_CPU_CLOCK)

#define RP_MAX_DEBUG_DIRS 8

struct rp_options {
	enum rp_output output;
	enum rp_event_kind event; /* --event */
	const char *out_path;   /* NULL: stdout */
	char **inputs;          /* points into argv */
	int ninputs;

	uint32_t pids[RP_MAX_FILTER], tids[RP_MAX_FILTER];
	size_t npids, ntids;
	char comms[RP_MAX_FILTER][16];
	size_t ncomms;
	bool time_set;
	uint64_t time_start_ns, time_end_ns; /* relative to recording start */

	bool user_only, kernel_only;
	bool folded_pid, folded_tid;
	bool no_inline, no_demangle;
	bool force;
	unsigned top;           /* summary rows */
	const char *symfs;
	const char *debug_dirs[RP_MAX_DEBUG_DIRS + 2]; /* NULL-terminated */
	enum rp_source sources[RP_MAX_SYMSRC]; /* in order; nsources 0: default */
	size_t nsources;
	const char *extract_dir; /* --extract-archive DIR */
	bool diff;              /* --diff BASE NEW: inputs[0] against inputs[1] */
	bool diff_normalize;    /* scale the base to the new total */
};

/*
 * Parses argv. Returns 0 to go on, 1 when --help or --version was printed
 * (exit 0), -1 on a usage error (message already printed).
 */
int rp_options_parse(int argc, char **argv, struct rp_options *o);

#endif /* RP_OPTIONS_H */
