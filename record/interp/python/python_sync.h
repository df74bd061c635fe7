/* SPDX-License-Identifier: MIT */
/*
 * trecord's Python support in three calls:
 *
 *   pid sync, per executable file-backed mapping (before the pid's synced
 *   marker is written):      trec_py_sync_mapping()
 *   exec and exit of a pid:  its table's (trec_py_sync_table()) exec / exit
 *   each trace, after its SAMPLE record:  trec_py_sync_trace()
 *
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
 * An executable mapping of pid: file_id as in the LPM trie, open_path a
 * path that opens the mapped file (e.g. /proc/PID/map_files/...), bias =
 * mapping start - ELF vaddr of its file offset. Returns 1 when the mapping
 * is a CPython interpreter and pid is now set up, 0 when it is not (or not
 * supported: logged once per file when verbose), negative errno on failure.
 */
int trec_py_sync_mapping(struct trec_py_sync *s, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias);

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

/* Writes PYCODE records for the trace's new Python code objects (s may
 * be NULL: no Python support). */
void trec_py_sync_trace(struct trec_py_sync *s, uint32_t pid, const struct trec_frame *frames,
			uint32_t num_frames);

/* Its table of files and pids (exec, exit, counters). */
struct trec_interp_table *trec_py_sync_table(struct trec_py_sync *s);

#endif /* TREC_PYTHON_SYNC_H */
