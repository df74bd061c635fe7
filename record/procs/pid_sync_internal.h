/* SPDX-License-Identifier: MIT */
/*
 * pid_sync's own state, shared by its files:
 *   pid_sync.c   a pid's mappings -> trie entries, snapshot, deltas; forks
 *   pid_state.c  per-pid state: entries applied, snapshots, exits, removal
 *   pid_files.c  the files mappings resolve to: FILE records, exec_files
 *   vdso.c       the vdso, kept as a memfd image
 */
#ifndef TREC_PID_SYNC_INTERNAL_H
#define TREC_PID_SYNC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/containers/u64map.h"
#include "record/procs/exit_fifo.h"
#include "record/procs/file_id.h"
#include "record/procs/lpm.h"
#include "record/io/log.h"
#include "record/procs/pid_sync.h"
#include "record/procs/proc_maps.h"

/* What a snapshot is compared on to decide whether it changed. */
struct map_sig {
	uint64_t start, end, offset, file_id;
};

struct pid_state {
	struct trec_lpm_entry *ents; /* sorted by key */
	size_t num_ents;
	struct map_sig *sigs;
	size_t num_sigs;
	/* The last snapshot written, paths in one block: a forked child
	 * starts with it, sharing the block (build ids point into the file
	 * cache). snap and num_snap are the block's. */
	struct trec_mapping *snap;
	size_t num_snap;
	struct pid_snap *snap_block;
	uint64_t synced_ns; /* last sync that read the mappings */
	uint64_t exited_ns; /* its last exit seen (event or sweep), 0 if none */
	uint64_t image[2];  /* its marker's image identity (bpf/trec_types.h) */
};

struct file_state {
	bool written;      /* FILE record is in the recording */
	bool deltas_tried; /* extraction attempted (loaded or failed) */
	bool published;    /* in exec_files, at published_offset */
	uint64_t published_offset;
	const struct trec_file *f; /* owned by the file cache */
	/* Our own fd of f when its path does not reach it from here (another
	 * mount namespace, deleted, replaced): what its symbols are read
	 * through at the end. -1 if none (owned). */
	int kept_fd;
};

struct trec_pid_sync {
	const struct trec_pid_sync_ops *ops;
	void *ctx;
	bool verbose;
	struct trec_file_cache *files;
	struct trec_u64map pids;    /* pid -> struct pid_state */
	struct trec_u64map fstates; /* file id -> struct file_state */
	struct trec_exit_fifo exited; /* pids in their exit grace period */
	uint64_t exit_grace_ns;       /* TREC_EXIT_GRACE_NS, or held longer */
	struct trec_file *vdso;
	int vdso_fd;
	bool vdso_tried;
	uint32_t kept_fds; /* file_state.kept_fd open, at most TREC_KEPT_FDS_MAX */
	struct trec_pid_sync_stats stats;
};

/* An opened mapping: the file, and a path through which it can be read
 * (/proc/self/fd/N of fd, which stays valid after the process exits). */
struct opened {
	struct trec_file *f;
	int fd; /* owned, or -1 */
	char path[64];
};

#define pid_sync_vlog(s, ...) trec_vlog((s)->verbose, __VA_ARGS__)

/* pid_files.c */
int pid_sync_resolve_file(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
			  struct opened *o);
void pid_sync_close_opened(struct opened *o);
/* Closes the fd fs kept for its symbols, if any. */
void pid_sync_close_kept(struct trec_pid_sync *s, struct file_state *fs);
struct file_state *pid_sync_file_state(struct trec_pid_sync *s, uint64_t file_id);
bool pid_sync_note_file(struct trec_pid_sync *s, struct opened *o, struct opened *pending);
void pid_sync_publish_exec_file(struct trec_pid_sync *s, const struct trec_proc_map *m,
				const struct trec_file *f, uint64_t vaddr);
void *pid_sync_get_or_new(struct trec_u64map *m, uint64_t key, size_t size, bool *created);

/* vdso.c: the vdso as a file of the cache; path gets a name to read it by. */
struct trec_file *pid_sync_vdso_file(struct trec_pid_sync *s, char *path, size_t pathlen);

/* pid_state.c */
struct pid_state *pid_state_get(struct trec_pid_sync *s, uint32_t pid);
void pid_state_apply_entries(struct trec_pid_sync *s, struct pid_state *old,
			     const struct trec_lpm_entry *nw, size_t n);
void pid_state_write_marker(struct trec_pid_sync *s, uint32_t pid, const uint64_t image[2]);
bool pid_state_sigs_equal(const struct pid_state *ps, const struct map_sig *sigs, size_t n);
int pid_state_keep_snapshot(struct pid_state *ps, const struct trec_mapping *v, size_t n);
/* A forked child's snapshot: its parent's block, shared, not copied (a
 * process of many long mapping paths forking often would otherwise cost
 * a copy per child). */
void pid_state_share_snapshot(struct pid_state *child, const struct pid_state *parent);
void pid_state_set_entries(struct trec_pid_sync *s, struct pid_state *ps,
			   struct trec_lpm_entry *ents, size_t num_ents, struct map_sig *sigs,
			   size_t num_sigs);

#endif /* TREC_PID_SYNC_INTERNAL_H */
