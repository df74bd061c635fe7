/* SPDX-License-Identifier: MIT */
/*
 * What one recording holds, shared by the two files that run it:
 * session.c (setup, the end, the file's last records) and session_loop.c
 * (the recording loop and the command's end). Not for other callers:
 * they have session.h.
 */
#ifndef TREC_SESSION_INTERNAL_H
#define TREC_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "record/bpf_loader.h"
#include "record/consumer.h"
#include "record/interp/interp.h"
#include "record/io/metrics.h"
#include "record/io/output.h"
#include "record/kernel/kallsyms.h"
#include "record/syncer.h"
#include "record/unwind/delta_cache.h"
#include "record/unwind/map_sinks.h"
#include "record/workload.h"
#include "trec_format.h"

struct trec_flight;
struct trec_jit_capture;
struct trec_options;
struct trec_touched;

/* What one recording holds; its threads get the parts they use. */
struct trec_session {
	const struct trec_options *opt;
	struct trec_bpf_loader bpf;
	struct trec_bpf_fds fd;
	struct trec_map_fds fds;      /* the trie and delta maps (map_sinks.h) */
	struct trec_delta_mem deltas_mem; /* fds.deltas_mem's chunks */
	struct trec_output out;
	struct trec_flight *flight;   /* --overwrite, --switch-output, or NULL */
	struct trec_consumer consumer;
	struct trec_syncer syncer;
	struct trec_interps interps;  /* Python and the other interpreters */
	struct trecord_counters cnt;
	struct trec_touched *touched; /* files samples hit (archive_touched.c) */
	struct trec_jit_capture *jit; /* perf maps, jitdump (record/jit/capture.h) */
	struct trec_kallsyms ksyms;   /* read by the writer when it needs it */

	char delta_cache_dir[4096];   /* "" without the cache */
	uint64_t start_ns, stop_ns; /* sampling */
	struct trec_workload wl;
	bool have_child, child_done;
	bool child_ended; /* trecord sent it SIGTERM: the recording ended first */
	int child_status;
};

/* Writes a METRICS record; bpf, if not NULL, gets the BPF counters read. */
void trec_session_write_metrics(struct trec_session *s, uint64_t *bpf);

/* session_loop.c */
/* Samples until something ends the recording; says what (SUMMARY flags). */
enum trec_stop_cause trec_session_loop(struct trec_session *s);
/* Reaps the command if it ended (flags: waitpid's). */
void trec_session_reap_child(struct trec_session *s, int flags);
/* The command outlived the recording: SIGTERM, then SIGKILL. */
void trec_session_end_child(struct trec_session *s);
/* perf record's exit status (see session_loop.c). */
int trec_session_exit_status(const struct trec_session *s, int *die_sig);

#endif /* TREC_SESSION_INTERNAL_H */
