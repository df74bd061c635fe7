/* SPDX-License-Identifier: MIT */
/*
 * Python support inside a trecord session: record/python_sync.c bound to
 * the session's BPF maps (py_procs, interpreter_offsets), its output and
 * its counters. The session calls these; see python_sync.h for when.
 */
#ifndef TREC_PYTHON_SESSION_H
#define TREC_PYTHON_SESSION_H

#include <stdint.h>

struct trec_session;
struct trec_py_sync;

/* After the BPF object is loaded. 0 or -ENOMEM. */
int trec_python_session_start(struct trec_session *s);
void trec_python_session_stop(struct trec_session *s);

/* pid_sync's exec_mapping op (ctx: the session). */
int trec_python_on_mapping(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			   uint64_t bias);

/* Copies the Python counters into the session's trecord counters. */
void trec_python_publish_stats(struct trec_session *s);

#endif /* TREC_PYTHON_SESSION_H */
