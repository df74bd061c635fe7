/* SPDX-License-Identifier: MIT */
/* trecord's command line. */
#ifndef TREC_CLI_H
#define TREC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	char **cmd;          /* -- cmd args..., or NULL */
	int archive_level;   /* enum trec_archive_level: --archive, --no-archive */
	int argc;            /* the whole command line, for META */
	char **argv;
};

enum { TREC_CLI_RUN = 0, TREC_CLI_EXIT_OK = 1, TREC_CLI_ERROR = -1 };

/* Parses argv into o. Prints help/version/errors itself (errors to err). */
int trec_parse_options(int argc, char **argv, struct trec_options *o, FILE *out, FILE *err);
void trec_options_free(struct trec_options *o);

#endif /* TREC_CLI_H */
