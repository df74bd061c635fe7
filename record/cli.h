/* SPDX-License-Identifier: MIT */
/* trecord's command line. */
#ifndef TREC_CLI_H
#define TREC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "record/flight/flight.h"

#define TREC_VERSION "0.1.0"
#define TREC_DEFAULT_OUTPUT "trec.tr"
/* 99 Hz, not perf's 4000: stacks are unwound in the kernel, and 99 keeps
 * the overhead and file size low while avoiding lockstep with 100 Hz
 * timers. */
#define TREC_DEFAULT_FREQ 99
#define TREC_MAX_FREQ 50000
/* The share of each CPU the sampler's BPF may take (--max-cpu), and the
 * most a user may allow: the kernel's own perf_cpu_time_max_percent is 25. */
#define TREC_DEFAULT_MAX_CPU 10.0
#define TREC_MAX_MAX_CPU 50.0
/* --off-cpu: waits shorter than this are counted, not written. 10 us keeps
 * the futex/pipe hand-offs of busy programs out, and every wait that
 * adds up to visible time in. */
#define TREC_DEFAULT_OFFCPU_MIN_US 10
#define TREC_MAX_OFFCPU_MIN_US 60000000 /* one minute */

struct trec_options {
	unsigned freq_hz;
	uint32_t *pids;      /* -p */
	size_t num_pids;
	bool all;            /* -a */
	const char *output;
	bool force;          /* -f: overwrite instead of keeping FILE.old */
	bool quiet;
	bool verbose;
	double duration_s;   /* 0: until the command ends or Ctrl-C */
	double max_cpu_pct;  /* --max-cpu: BPF CPU budget per CPU, percent */
	bool no_delta_cache; /* --no-delta-cache */
	bool no_symbol_cache; /* --no-symbol-cache */
	bool no_deferred_unwind; /* --no-deferred-unwind */
	char **cmd;          /* -- cmd args..., or NULL */
	int archive_level;   /* enum trec_archive_level: --archive, --no-archive */
	int compression_level; /* -z: zstd level; 0: auto (record/io/output.c) */
	bool off_cpu;        /* --off-cpu: also where threads block, and how long */
	uint64_t offcpu_min_us; /* --off-cpu-min */
	int argc;            /* the whole command line, for META */
	char **argv;
	struct trec_flight_opts flight; /* --overwrite, --switch-output (cli_perf.c) */
	/* perf record's spellings (cli_perf.c) */
	uint32_t *tids;      /* -t */
	size_t num_tids;
	uint8_t *cpus;       /* -C: cpus[i] != 0: sample on CPU i; NULL: every CPU */
	int cpus_len;        /* entries in cpus */
	uint32_t uid;        /* -u, or TREC_NO_UID */
	uint64_t cgroup_id;  /* -G: cgroup v2 id */
	uint64_t period_ns;  /* -c: a sample every period_ns of CPU time; 0: -F */
};

enum { TREC_CLI_RUN = 0, TREC_CLI_EXIT_OK = 1, TREC_CLI_ERROR = -1 };

/* Parses argv into o. Prints help/version/errors itself (errors to err). */
int trec_parse_options(int argc, char **argv, struct trec_options *o, FILE *out, FILE *err);
void trec_options_free(struct trec_options *o);

#endif /* TREC_CLI_H */
