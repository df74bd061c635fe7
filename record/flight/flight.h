/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder and rotating output (--overwrite, --switch-output):
 * instead of one file, the recording threads write into segments kept in
 * memory (about a tenth of the window each, at most a second), and the
 * main thread turns them into self-contained files named like perf's,
 * OUT.YYYYMMDDhhmmssCC:
 *
 *   --overwrite    segments older than the window leave memory (their
 *                  lasting records folded into the state, state.h); a
 *                  switch writes the state and the segments in the window
 *   rotation       each segment goes to the file being written as it ends;
 *                  a switch finishes that file
 *
 * Every file: the state (META, FILE, the MAPPINGS in force, PYCODE, JITSYMS,
 * KSYMS), its segments' chunks as written, METRICS, the embedded symbols of
 * the files its samples touched, its SUMMARY. Main thread only.
 */
#ifndef TREC_FLIGHT_H
#define TREC_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trec_output;
struct trec_summary;
struct trecord_counters;
struct trec_bpf_loader;
struct trec_syncer;

enum trec_switch_kind {
	TREC_SWITCH_NONE = 0,
	TREC_SWITCH_SIGNAL, /* SIGUSR2 only */
	TREC_SWITCH_TIME,
	TREC_SWITCH_SIZE,
};

struct trec_flight_opts {
	bool overwrite;       /* --overwrite: keep the last window_s only */
	double window_s;      /* --window (default 30) */
	bool window_set;      /* --window given (it goes with --overwrite) */
	int switch_kind;      /* enum trec_switch_kind; SIGUSR2 switches in every mode */
	uint64_t switch_ns;   /* TIME */
	uint64_t switch_bytes;/* SIZE */
	unsigned max_files;   /* --switch-max-files; 0: keep all */
};

/* Whether the options ask for the flight recorder. */
static inline bool trec_flight_wanted(const struct trec_flight_opts *o)
{
	return o->overwrite || o->switch_kind != TREC_SWITCH_NONE;
}

/* What the flight recorder needs from the session. */
struct trec_flight_ctx {
	const char *path;       /* -o: files are path.TIMESTAMP */
	int archive_level;
	bool quiet;
	struct trecord_counters *cnt;
	const struct trec_bpf_loader *bpf; /* its counters, for METRICS */
	int metrics_fd;
	/* Before a switch while recording, its thread reads what is owed to
	 * the file (the names of live processes' JIT code). */
	struct trec_syncer *syncer;
};

struct trec_flight;

/* Opens out on the first segment. 0, or negative errno with a message. */
int trec_flight_open(struct trec_flight **f, const struct trec_flight_opts *o,
		     const struct trec_flight_ctx *x, struct trec_output *out,
		     char *msg, size_t msglen);
/* From the main loop: ends segments, evicts, and switches when asked
 * (switch_requests: SIGUSR2s so far) or due. 0, or a write error (the
 * message printed): the recording stops. */
int trec_flight_tick(struct trec_flight *f, uint64_t now, unsigned switch_requests);
/* The end: the last file, with the recording's end in sum (exit status,
 * stop cause; the rest is the file's). After the threads stopped. */
int trec_flight_finish(struct trec_flight *f, const struct trec_summary *sum);
/* The end of trecord's summary line: what was dropped, the files written. */
void trec_flight_print_summary(const struct trec_flight *f, FILE *out);
void trec_flight_free(struct trec_flight *f);

#endif /* TREC_FLIGHT_H */
