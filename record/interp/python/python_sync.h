/* SPDX-License-Identifier: MIT */
/*
 * trecord's Python support: an interpreter table (interp_table.h,
 * trec_py_sync_table()) whose calls
 *
 *   pid sync, per executable file-backed mapping (before the pid's synced
 *   marker is written):      trec_interp_table_mapping()
 *   exec and exit of a pid:  trec_interp_table_exec/exit()
 *   each trace, after its SAMPLE record:  trec_interp_table_trace()
 *
 * do the Python work, and the -X perf trampolines' arenas (trec_py_sync_anon).
 * The first detects CPython in the mapped file (once per file id) and
 * fills interpreter_offsets[file id] and py_procs[pid]; the last writes a
 * PYCODE record for each code object the trace names that is new for its
 * pid. Thread-safe: pid sync and the trace writer may be different threads.
 */
#ifndef TREC_PYTHON_SYNC_H
#define TREC_PYTHON_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "record/interp/interp_table.h"
#include "record/interp/python/python_codeobj.h"
#include "trec_types.h"

struct trec_py_sync;

struct trec_py_sync *trec_py_sync_new(const struct trec_interp_sink *sink, bool verbose);
void trec_py_sync_free(struct trec_py_sync *s);

/*
 * An anonymous executable mapping [start, end) of pid, synced after its
 * file mappings. When pid maps a CPython whose -X perf trampoline template
 * we can unwind and the mapping is made of its arenas (each one's first
 * bytes read from the process), *file_id gets the arenas' synthetic file
 * id (python_tramp.h; each arena's bias is its start) and returns 1; the
 * first time an id is returned, *deltas also gets the deltas of one arena,
 * for the caller to load and free (else deltas->num is 0). 0 when not.
 */
struct trec_file_deltas;
int trec_py_sync_anon(struct trec_py_sync *s, uint32_t pid, uint64_t start, uint64_t end,
		      uint64_t *file_id, struct trec_file_deltas *deltas);

/* Its table of files and pids: mappings, traces, exec, exit, counters
 * (interp_table.h). */
struct trec_interp_table *trec_py_sync_table(struct trec_py_sync *s);

#endif /* TREC_PYTHON_SYNC_H */
