/* SPDX-License-Identifier: MIT */
/*
 * The options trecord takes beyond its own core (cli.c): the flight
 * recorder's (--overwrite, --window, --switch-output, --switch-max-files)
 * and perf record's spellings (-t, -C, -u, -G, -c, -e, and the no-ops -g,
 * --call-graph, -z, -B, -N). README's perf table says what each does.
 */
#ifndef TREC_CLI_PERF_H
#define TREC_CLI_PERF_H

#include <getopt.h>
#include <stdio.h>

struct trec_options;

/* The lines --help adds for these options. */
extern const char trec_cli_perf_usage[];
/* getopt_long's table and short letters of these options. */
extern const struct option trec_cli_perf_longopts[];
#define TREC_CLI_PERF_SHORTOPTS "t:C:u:G:c:e:gz::BN"

/* Sets the defaults (before parsing). */
void trec_cli_perf_init(struct trec_options *o);
/* Handles option c: 1 it was one of these, 0 it is not, -1 a usage error
 * (printed to err). */
int trec_cli_perf_option(int c, const char *arg, struct trec_options *o, FILE *err);
/* After parsing, before cli.c's target checks: what the options imply
 * (-u and -G alone record system-wide) and their conflicts. 0 or -1. */
int trec_cli_perf_finish(struct trec_options *o, FILE *err);
void trec_cli_perf_free(struct trec_options *o);
/* A usage error: "trecord: " fmt (with arg) " (see trecord --help)" on err;
 * returns TREC_CLI_ERROR. cli.c's too. */
int trec_cli_bad(FILE *err, const char *fmt, const char *arg);

#endif /* TREC_CLI_PERF_H */
