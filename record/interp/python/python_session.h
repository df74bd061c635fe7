/* SPDX-License-Identifier: MIT */
/*
 * Python support inside a trecord recording: python_sync.c bound to the
 * BPF maps (py_procs, interpreter_offsets), the output and the counters.
 * The session starts and stops it; the sync thread reports mappings, the
 * writer thread traces (python_sync.h says when).
 */
#ifndef TREC_PYTHON_SESSION_H
#define TREC_PYTHON_SESSION_H

#include <stdbool.h>
#include <stdint.h>

struct trec_bpf_loader;
struct trec_output;
struct trec_py_sync;
struct trecord_counters;

struct trec_python_session {
	struct trec_py_sync *py; /* NULL until started */
	struct trec_output *out;
	int procs_fd, ranges_fd;
	struct trec_bpf_loader *bpf; /* loads the unwinder before its first range */
	unsigned warned;             /* its load failed: said once */
};

/* After the BPF object is loaded. 0 or -ENOMEM. */
int trec_python_session_start(struct trec_python_session *ps, struct trec_output *out,
			      int procs_fd, int ranges_fd, bool verbose);
void trec_python_session_stop(struct trec_python_session *ps);

/* pid_sync's exec_mapping op (ctx: the python session). */
int trec_python_on_mapping(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			   uint64_t bias);

/* Copies the Python counters into trecord's counters. */
void trec_python_publish_stats(const struct trec_python_session *ps,
			       struct trecord_counters *cnt);

#endif /* TREC_PYTHON_SESSION_H */
