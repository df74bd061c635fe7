/* SPDX-License-Identifier: MIT */
/*
 * trecord's Python support in three calls:
 *
 *   pid sync, per executable file-backed mapping (before the pid's synced
 *   marker is written):      trec_py_sync_mapping()
 *   exec and exit of a pid:  trec_py_sync_remove()
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
#include "record/interp/python/python_codeobj.h"
#include "trec_types.h"

struct trec_py_sync_ops {
	int (*set_range)(void *ctx, uint64_t file_id, const struct trec_offset_range *r);
	int (*set_proc)(void *ctx, uint32_t pid, const struct trec_py_proc_info *info);
	void (*del_proc)(void *ctx, uint32_t pid);
	trec_pycode_write_fn write_blob; /* PYCODE records */
};

struct trec_py_sync_stats {
	uint64_t interpreters;  /* files detected as CPython */
	uint64_t unsupported;   /* CPython files we cannot unwind (version, layout) */
	uint64_t pids;          /* processes set up */
	uint64_t pid_failures;  /* CPython pids we could not set up (libc TSD) */
	uint64_t code_written, code_unreadable, code_stale;
};

struct trec_py_sync;

struct trec_py_sync *trec_py_sync_new(const struct trec_py_sync_ops *ops, void *ctx,
				      bool verbose);
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

/* The pid exited: forget its offsets (py_procs) and code objects. */
void trec_py_sync_remove(struct trec_py_sync *s, uint32_t pid);
/* The pid exec'ed: its code objects are gone. Its py_procs entry stays
 * until the new image's sync replaces it: the sync may already have run
 * (a sample of the new image reports the pid before the writer sees the
 * exec event), and a deleted entry would not come back. */
void trec_py_sync_exec(struct trec_py_sync *s, uint32_t pid);
/* These three accept s == NULL (no Python support). */

/* Writes PYCODE records for the trace's new Python code objects. */
void trec_py_sync_trace(struct trec_py_sync *s, uint32_t pid, const struct trec_frame *frames,
			uint32_t num_frames);

void trec_py_sync_get_stats(struct trec_py_sync *s, struct trec_py_sync_stats *st);

#endif /* TREC_PYTHON_SYNC_H */
