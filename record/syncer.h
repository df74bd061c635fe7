/* SPDX-License-Identifier: MIT */
/*
 * The sync thread: owns pid_sync (and so the LPM trie and the stack-delta
 * maps) and the delta loader. Work comes from three places: pids BPF
 * reported (pid_events, with a wake-up on report_events), fork/exec/exit
 * events forwarded by the writer thread, and requests of the main thread.
 */
#ifndef TREC_SYNCER_H
#define TREC_SYNCER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "record/io/msg_queue.h"
#include "record/unwind/delta_loader.h"

struct perf_buffer;
struct trec_jit_capture;
struct trec_map_fds;
struct trec_output;
struct trec_pid_event_msg;
struct trec_pid_sync;
struct trec_interps;
struct trec_touched;
struct trec_deferred_pids;
struct trecord_counters;

/* Requests to the sync thread. */
enum trec_sync_req_kind {
	TREC_SYNC_PID = 1,    /* (re)read the pid's mappings */
	TREC_SYNC_EXIT = 2,   /* the pid exited: remove it after a grace period */
	TREC_SYNC_PREFETCH = 3, /* load the pid's deltas only (trecord itself) */
	TREC_SYNC_MARK = 4,   /* bumps marks_done: the requests before it are done */
	TREC_SYNC_FORK = 5,   /* pid was forked by parent: copy parent's mappings */
	TREC_SYNC_JIT = 6,    /* a switched file is due: read live JIT names now */
};

struct trec_sync_req {
	uint32_t kind;
	uint32_t pid;
	uint32_t parent; /* TREC_SYNC_FORK */
	uint64_t time_ns; /* TREC_SYNC_FORK: the fork event's */
};

/* What the syncer works with; owned by the caller, valid until free. */
struct trec_syncer_ctx {
	bool verbose;
	struct trec_output *out;
	struct trecord_counters *cnt;
	struct trec_touched *touched;    /* or NULL */
	struct trec_interps *interps;    /* interpreter backends */
	struct trec_jit_capture *jit;    /* perf maps, jitdump (record/jit/capture.h) */
	struct trec_map_fds *fds;        /* trie and delta maps */
	int pid_events_fd, inhibit_fd, exec_files_fd, report_events_fd;
	const char *delta_cache_dir;     /* NULL: no persistent delta cache */
	/* Deferred samples waiting (record/unwind/deferred/deferred_queue.h): exited
	 * pids keep their entries longer meanwhile. NULL: none. */
	const atomic_uint_fast32_t *deferred_waiting;
	/* Where syncs that found a pid gone are noted (deferred_pids.h), or NULL. */
	struct trec_deferred_pids *deferred_pids;
};

struct trec_syncer {
	struct trec_syncer_ctx x;
	struct trec_msg_queue requests; /* ring, main -> sync */
	struct trec_pid_sync *sync;
	struct trec_delta_loader deltas;
	struct perf_buffer *pb;
	int efd, epfd; /* wake-ups */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	atomic_uint marks_done; /* TREC_SYNC_MARK requests handled */
};

#define TREC_SYNCER_INIT { .efd = -1, .epfd = -1 }

/* Sets up pid_sync, the delta loader and the wake-ups, and starts the
 * thread. On error, trec_syncer_free undoes what was done. */
int trec_syncer_start(struct trec_syncer *y, const struct trec_syncer_ctx *x);
int trec_syncer_request(struct trec_syncer *y, uint32_t kind, uint32_t pid);
/* The sync requests a pid event implies (arg: the syncer; called from the
 * writer thread: the sooner a new process is synced, the fewer of its
 * samples lack a stack). */
void trec_syncer_on_pid_event(void *arg, const struct trec_pid_event_msg *m);
/* Applies the requests still queued and joins the thread. */
void trec_syncer_stop(struct trec_syncer *y);
void trec_syncer_free(struct trec_syncer *y);

#endif /* TREC_SYNCER_H */
