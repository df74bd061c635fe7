/* SPDX-License-Identifier: MIT */
/*
 * One recording: BPF programs, output, and the three worker threads.
 *
 *   ring thread   drains the BPF ring buffer into `queue` (never blocks;
 *                 drops and counts when the queue is full)
 *   writer thread turns queued traces and pid events into records
 *                 (consumer.c); forwards exec/exit to the sync thread
 *   sync thread   syncs processes: reported pids, execs, exits (syncer.c)
 *   main thread   signals, the command, periodic flush and metrics
 */
#ifndef TREC_SESSION_H
#define TREC_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "bpf_loader.h"
#include "cli.h"
#include "delta_loader.h"
#include "kallsyms.h"
#include "map_sinks.h"
#include "metrics.h"
#include "msg_queue.h"
#include "output.h"
#include "pid_sync.h"
#include "python_session.h"
#include "u64map.h"
#include "workload.h"

struct ring_buffer;
struct perf_buffer;
struct trec_pid_event_msg;
struct trec_jit_capture;

/* Requests to the sync thread. */
enum trec_sync_req_kind {
	TREC_SYNC_PID = 1,    /* (re)read the pid's mappings */
	TREC_SYNC_EXIT = 2,   /* the pid exited: remove it after a grace period */
	TREC_SYNC_PREFETCH = 3, /* load the pid's deltas only (trecord itself) */
	TREC_SYNC_MARK = 4,   /* bumps syncs_done: the requests before it are done */
	TREC_SYNC_FORK = 5,   /* pid was forked by parent: copy parent's mappings */
};

struct trec_sync_req {
	uint32_t kind;
	uint32_t pid;
	uint32_t parent; /* TREC_SYNC_FORK */
};

struct trec_session {
	const struct trec_options *opt;
	struct trec_bpf_loader bpf;
	struct trec_output out;
	struct trec_map_fds fds;
	int stackmap_fd, pid_events_fd, inhibit_fd, followed_fd, exec_files_fd;

	struct ring_buffer *rb;
	struct perf_buffer *pb;
	struct trec_msg_queue queue;  /* ring -> writer */
	struct trec_msg_queue syncq;  /* writer, main -> sync */
	struct trec_pid_sync *sync;
	struct trec_delta_loader deltas;
	struct trec_py_sync *py; /* python_session.c */
	int py_procs_fd, py_ranges_fd;
	int sync_efd, sync_epfd; /* wake-ups of the sync thread */

	pthread_t ring_thread, writer_thread, sync_thread;
	bool ring_started, writer_started, sync_started;
	atomic_bool stop_ring, stop_sync;
	struct trecord_counters cnt;
	atomic_uint marks_done; /* TREC_SYNC_MARK requests handled */

	/* writer thread only (after setup) */
	struct trec_u64map kstacks;   /* kernel stack id -> struct trec_kstack */
	struct trec_u64map seen_pids; /* pids with samples */
	struct trec_touched *touched; /* files samples hit (archive_touched.c) */
	struct trec_jit_capture *jit; /* perf maps, jitdump (record/jit/capture.h) */
	struct trec_kallsyms ksyms;   /* snapshot from the start */
	struct trec_ksym_subset ksyms_used;
	uint64_t ksyms_time_ns, ksyms_written_ns;

	uint64_t start_ns, stop_ns; /* sampling */
	struct trec_workload wl;
	bool have_child, child_done;
	int child_status;
};

uint64_t trec_now_ns(void);

/* consumer.c */
int trec_ring_thread_start(struct trec_session *s);
int trec_writer_thread_start(struct trec_session *s);
void trec_consumer_free(struct trec_session *s);

/* syncer.c */
int trec_sync_thread_start(struct trec_session *s);
int trec_sync_request(struct trec_session *s, uint32_t kind, uint32_t pid);
/* The sync requests a pid event implies (ring thread: the sooner a new
 * process is synced, the fewer of its samples lack a stack). */
void trec_sync_on_pid_event(struct trec_session *s, const struct trec_pid_event_msg *m);
void trec_syncer_free(struct trec_session *s);

/* archive_session.c: embeds the symbols of the touched files (before SUMMARY). */
struct trec_archive_totals;
int trec_session_write_archives(struct trec_session *s, struct trec_archive_totals *tot);

/* session.c: runs a whole recording; returns trecord's exit code, or sets
 * *die_sig to the signal trecord must die by (trec_die_by_signal). */
int trec_record(const struct trec_options *opt, int *die_sig);

#endif /* TREC_SESSION_H */
