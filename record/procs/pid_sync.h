/* SPDX-License-Identifier: MIT */
/*
 * Process sync: makes a pid's executable mappings known to the BPF
 * unwinder and to the recording.
 *
 * For each executable mapping of /proc/PID/maps: the file's id, its bias
 * (runtime address - ELF vaddr), its stack deltas (loaded once per file,
 * shared by all pids), and the LPM prefixes covering the range. The pid's
 * "synced" marker goes in last. A resync (exec, dlopen) writes the new
 * prefixes before removing stale ones, so lookups never see a gap.
 *
 * Everything it writes goes through ops, so tests can run it against
 * plain tables instead of BPF maps. Stack deltas are handed to
 * ops->load_deltas after the prefixes are in, so a big file does not keep
 * its pid unknown while it is extracted.
 */
#ifndef TREC_PID_SYNC_H
#define TREC_PID_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include "trec_format.h"
#include "trec_types.h"
#include "record/procs/lpm.h"

struct trec_pid_sync_ops {
	/* pid_page_to_mapping_info */
	int (*lpm_update)(void *ctx, const struct trec_pid_page_key *k,
			  const struct trec_pid_page_value *v);
	int (*lpm_delete)(void *ctx, const struct trec_pid_page_key *k);
	/* reported_pids: forget the rate limit after a sync that found news */
	void (*report_reset)(void *ctx, uint32_t pid);
	/* Stack deltas for a file seen for the first time, read from fd (the
	 * callee owns and closes it). NULL: no deltas. */
	void (*load_deltas)(void *ctx, uint64_t file_id, int fd, uint64_t size, const char *name);
	/* A file's deltas will be loaded (before its prefixes go in); or NULL. */
	void (*expect_deltas)(void *ctx, uint64_t file_id);
	/* Records for the recording (may be NULL in tests). */
	int (*write_file)(void *ctx, const struct trec_file_info *f);
	int (*write_mappings)(void *ctx, const struct trec_mapping_snapshot *m);
	int (*write_blob)(void *ctx, enum trec_record_type type, const struct trec_blob *b);
	/* Each executable file mapping, before the pid's marker is written:
	 * open_path opens the file, bias = start - ELF vaddr (may be NULL;
	 * interpreter detection, record/interp/interp.h). */
	int (*exec_mapping)(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			    uint64_t bias);
	/* An anonymous executable mapping, after the file mappings: when its
	 * code has stack deltas under a synthetic *file_id, made of blocks
	 * of N bytes that each have their start as bias (CPython's perf
	 * trampoline arenas), returns N; 0: frame pointers. May be NULL. */
	uint64_t (*anon_exec_mapping)(void *ctx, uint32_t pid, uint64_t start, uint64_t end,
				      uint64_t *file_id);
	/* An executable mapping of a described file, by what the kernel
	 * knows of it (exec_files; may be NULL). */
	int (*exec_file)(void *ctx, const struct trec_exec_file_key *k,
			 const struct trec_exec_file_value *v);
	/* Timestamps on the recording's clock (CLOCK_MONOTONIC ns). */
	uint64_t (*now_ns)(void *ctx);
};

struct trec_pid_sync_stats {
	uint64_t syncs, sync_gone, sync_changed, fork_copies;
	uint64_t files;
	/* ELF files their mapped path does not reach from trecord, kept open
	 * for their symbols; and those past the bounds, left to their path */
	uint64_t files_kept, files_not_kept;
	uint64_t lpm_entries, lpm_failures;
	uint64_t pids;
};

struct trec_pid_sync;

struct trec_pid_sync *trec_pid_sync_new(const struct trec_pid_sync_ops *ops, void *ctx,
					bool verbose);
/* Syncs pid. 0; -ESRCH if the process is gone; other negative errno. */
int trec_pid_sync_pid(struct trec_pid_sync *s, uint32_t pid);
/* child was just forked by parent: until it execs it has exactly the
 * parent's mappings, so it gets the parent's prefixes, marker and snapshot
 * at once, without waiting for a sample and a read of /proc. -ENOENT if
 * the parent is not synced (the child then syncs when it reports). */
int trec_pid_sync_fork(struct trec_pid_sync *s, uint32_t child, uint32_t parent);
/* Starts loading the deltas of pid's libc, ld.so and vdso without syncing
 * the pid: with trecord's own pid, they are ready before the command runs
 * (nearly every program maps the same three). */
int trec_pid_sync_prefetch(struct trec_pid_sync *s, uint32_t pid);
/* The process ended: remove its prefixes and marker. */
void trec_pid_sync_remove(struct trec_pid_sync *s, uint32_t pid);
/* The process exited: its entries stay for TREC_EXIT_GRACE_NS, for the
 * samples the kernel takes while it tears the process down. */
#define TREC_EXIT_GRACE_NS (250ULL * 1000000ULL)
void trec_pid_sync_exited(struct trec_pid_sync *s, uint32_t pid);
/* Removes the exited pids whose grace period is over, unless a sync since
 * their exit found a process under the same pid; all: at the end of a
 * recording, every exited pid and every pid that no longer exists. */
void trec_pid_sync_reap(struct trec_pid_sync *s, bool all);
/* While samples of exited processes may still be walked in userspace
 * (deferred unwinding), their entries stay this long instead. */
#define TREC_EXIT_HOLD_NS (10000ULL * 1000000ULL)
void trec_pid_sync_hold_exited(struct trec_pid_sync *s, bool hold);
/* Tracked pids that no longer exist: an exit not seen starts their grace
 * period; one past it is removed. */
void trec_pid_sync_sweep(struct trec_pid_sync *s);
bool trec_pid_sync_known(const struct trec_pid_sync *s, uint32_t pid);
void trec_pid_sync_get_stats(const struct trec_pid_sync *s, struct trec_pid_sync_stats *st);
void trec_pid_sync_free(struct trec_pid_sync *s);

struct trec_file;
/* The LPM selector (enum trec_unwinder) of an executable mapping of path,
 * described as f (NULL: anonymous, or not readable): stack deltas for ELF
 * files with CFI, frame pointers for JIT code and files without CFI. */
uint8_t trec_pid_sync_unwinder(const char *path, const struct trec_file *f);
/* The file a FILE record was written for, and a path that reads it now:
 * the vdso's copy for [vdso], /proc/self/fd/N of the fd kept for a file
 * its own path does not reach (f->path is still the name to show); NULL if
 * the id is unknown. */
const struct trec_file *trec_pid_sync_file(struct trec_pid_sync *s, uint64_t file_id,
					   char *path, size_t pathlen);
/* Bounds on those kept fds, as a process chooses its mappings: at most
 * TREC_KEPT_FDS_MAX, and one only while TREC_FDS_SPARE fds stay free
 * under the soft limit for the rest of trecord (per-thread events raise
 * it to just what they need: sample_events.c counts both in). */
#define TREC_KEPT_FDS_MAX 256
#define TREC_FDS_SPARE 64

/* The LPM key for an aligned block, and the pid marker. */


#endif /* TREC_PID_SYNC_H */
