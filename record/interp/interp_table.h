/* SPDX-License-Identifier: MIT */
/*
 * The tables every interpreter backend keeps (python, perl, ruby, php):
 * what each mapped file is (detected once per file id), which pids are set
 * up for the unwinder (once per file id and bias), the lock around both
 * and the counters. The backend supplies how to detect its interpreter in
 * a file, how to set a pid up and how to describe a frame, and the sizes
 * of what it keeps per file and per pid; the table calls them, routes each
 * detected file's range (interpreter_offsets) and drops exited pids.
 * Thread-safe: pid sync and the trace writer may be different threads.
 */
#ifndef TREC_INTERP_TABLE_H
#define TREC_INTERP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "record/interp/interp_seen.h"
#include "trec_format.h"
#include "trec_types.h"

struct trecord_counters;

struct trec_interp_stats {
	uint64_t interpreters; /* files detected as one we can unwind */
	uint64_t unsupported;  /* ones we cannot (version, layout, build) */
	uint64_t pids;         /* processes set up */
	uint64_t pid_failures; /* processes that could not be set up (libc TSD) */
	uint64_t code_written, code_unreadable, code_stale;
};

struct trec_interp_table;

struct trec_interp_table_ops {
	const char *lang;           /* for messages: "no <lang> stacks" */
	size_t file_size, pid_size; /* the backend's data per file, per pid */
	uint8_t frame_kind;         /* TREC_FRAME_*: the frames describe() sees */
	/* Its block of trecord metrics (record/io/metrics.h): the first, in
	 * the order of struct trec_interp_stats, pid_failures only if it has
	 * that metric. */
	unsigned metric_first;
	bool metric_pid_failures;
	/* 0: path is an interpreter we can unwind (*file and *r filled);
	 * -ENOENT: not one; another negative errno: one we cannot unwind,
	 * err says why. */
	int (*detect)(const char *path, void *file, struct trec_offset_range *r, char *err,
		      size_t err_len);
	/* Optional, verbose only: says what was detected in the file shown. */
	void (*detected)(const void *file, const char *shown);
	/* Sets pid up for file (fills *pd, writes its procs entry). 0 done;
	 * -ENOENT not yet (the next sync retries silently); another negative
	 * errno: failed (when err says why: counted and said once per pid). */
	int (*set_up)(struct trec_interp_table *t, uint32_t pid, const void *file,
		      const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len);
	/* Describes frame f of pid (arg: trec_interp_table_trace's) unless
	 * seen (the pid's code handled since its exec: note what it handles
	 * there): 1 written, 0 handled before, a negative errno when it could
	 * not be (-ESTALE: replaced before it was read). */
	int (*describe)(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
			struct trec_interp_seen *seen, const struct trec_frame *f);
};

/* Where a backend's results go (the BPF maps and the recording in
 * trecord: interp_session.h; plain tables in the harness). */
struct trec_interp_sink {
	int (*set_range)(void *ctx, uint64_t file_id, const struct trec_offset_range *r);
	/* info: the backend's procs map value */
	int (*set_proc)(void *ctx, uint32_t pid, const void *info);
	void (*del_proc)(void *ctx, uint32_t pid);
	/* code descriptions (PYCODE, INTERP_CODE records) */
	int (*write_blob)(void *ctx, enum trec_record_type type, const struct trec_blob *b);
	void *ctx;
};

/* backend: what else the backend keeps (trec_interp_table_backend()). */
struct trec_interp_table *trec_interp_table_new(const struct trec_interp_table_ops *ops,
						const struct trec_interp_sink *sink, void *backend,
						bool verbose);
void trec_interp_table_free(struct trec_interp_table *t); /* NULL: nothing */

/* As trec_interp_ops.on_mapping: 1 pid is set up for this file, 0 the
 * file is not (or not yet usable), a negative errno on failure. */
int trec_interp_table_mapping(struct trec_interp_table *t, uint32_t pid, uint64_t file_id,
			      const char *open_path, uint64_t bias);
/* Enters a file detected elsewhere (the harness's core dump) and routes
 * its range. 0 or a negative errno. */
int trec_interp_table_add_file(struct trec_interp_table *t, uint64_t file_id, const void *file,
			       const struct trec_offset_range *r);
/* Describes the trace's frames of ops->frame_kind (not error frames)
 * with describe(.., arg, ..) and counts the results. */
void trec_interp_table_trace(struct trec_interp_table *t, uint32_t pid,
			     const struct trec_frame *frames, uint32_t n, void *arg);
/* pid exec'ed: its code objects are gone. Its procs entry stays until
 * the new image's sync replaces it: the sync may already have run (a
 * sample of the new image reports the pid before the writer sees the
 * exec event), and a deleted entry would not come back. */
void trec_interp_table_exec(struct trec_interp_table *t, uint32_t pid);
/* pid exited: forget it and delete its procs entry. */
void trec_interp_table_exit(struct trec_interp_table *t, uint32_t pid);
/* trace, exec and exit accept t == NULL (no such support). */

/* For a backend's other calls: under the lock, pid's data and (*file)
 * the data of the interpreter it was set up for; NULL when none. */
void trec_interp_table_lock(struct trec_interp_table *t);
void trec_interp_table_unlock(struct trec_interp_table *t);
void *trec_interp_table_pid(struct trec_interp_table *t, uint32_t pid, const void **file);

/* For ops' callbacks. */
const struct trec_interp_sink *trec_interp_table_sink(const struct trec_interp_table *t);
void *trec_interp_table_backend(const struct trec_interp_table *t);
bool trec_interp_table_verbose(const struct trec_interp_table *t);

void trec_interp_table_get_stats(struct trec_interp_table *t, struct trec_interp_stats *st);

/*
 * trec_interp_ops callbacks for a backend whose state starts with a
 * pointer to its table (struct { struct trec_interp_table *table; ...}).
 */
int trec_interp_table_on_mapping(void *state, uint32_t pid, uint64_t file_id,
				 const char *open_path, uint64_t bias);
void trec_interp_table_on_trace(void *state, uint32_t pid, const struct trec_frame *frames,
				uint32_t n);
void trec_interp_table_on_exec(void *state, uint32_t pid);
void trec_interp_table_on_exit(void *state, uint32_t pid);
void trec_interp_table_on_stats(void *state, struct trecord_counters *cnt);
/* Those five, inside a struct trec_interp_ops initializer. */
#define TREC_INTERP_TABLE_ON_OPS                         \
	.on_mapping = trec_interp_table_on_mapping,      \
	.on_trace = trec_interp_table_on_trace,          \
	.on_exec = trec_interp_table_on_exec,            \
	.on_exit = trec_interp_table_on_exit,            \
	.publish_stats = trec_interp_table_on_stats

#endif /* TREC_INTERP_TABLE_H */
