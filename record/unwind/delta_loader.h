/* SPDX-License-Identifier: MIT */
/*
 * Loads files' stack deltas (extraction + delta store) on its own thread,
 * so a huge library (libLLVM: ~1M deltas, seconds to extract) never keeps
 * other processes from being synced. Without a thread (tests), each
 * submission is loaded at once.
 */
#ifndef TREC_DELTA_LOADER_H
#define TREC_DELTA_LOADER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "record/io/msg_queue.h"
#include "record/unwind/unwind_tables.h"

/* Files above this size (libLLVM: 100+ MB, ~1M deltas) wait until no
 * smaller file is queued, so common libraries are never stuck behind them. */
#define TREC_DELTA_LARGE_FILE (8u << 20)

struct trec_delta_loader {
	struct trec_delta_store *store; /* used by the loading thread only */
	struct trec_msg_queue jobs, large_jobs;
	pthread_t thread;
	bool threaded, verbose;
	atomic_bool busy; /* the thread is inside a load */
	atomic_uint_fast64_t loaded, failed, queued;
	atomic_uint_fast64_t finished; /* loads ended, loaded or not */
	/* Store usage, published after each load. */
	atomic_uint_fast32_t deltas_used, infos_used, pages_used;
	/* The persistent cache (delta_cache.h), NULL: not used. Set before
	 * the thread starts. */
	const char *cache_dir;
	atomic_uint_fast64_t cache_hits, cache_rejected;
	/* defer_files (bpf/deferred.h): a queued file's id is in it until its
	 * load ends, so BPF defers rather than guesses its frames. -1: none. */
	int defer_files_fd;
};

int trec_delta_loader_init(struct trec_delta_loader *l, const struct trec_delta_sink_ops *ops,
			   void *ctx, bool verbose);
/* Starts the loading thread. */
int trec_delta_loader_start(struct trec_delta_loader *l);
/* Loads the deltas of the file open at fd (taken over: closed when done),
 * whose size is size. name is for messages. 0 or negative errno (fd
 * closed then too). */
int trec_delta_loader_submit(struct trec_delta_loader *l, uint64_t file_id, int fd,
			     uint64_t size, const char *name);
/* Marks file_id as loading for BPF's deferral (bpf/deferred.h) before its
 * submission; the load's end clears the mark. */
void trec_delta_loader_expect(struct trec_delta_loader *l, uint64_t file_id);
/* Loads deltas trecord made itself (d is taken over and emptied). */
int trec_delta_loader_submit_deltas(struct trec_delta_loader *l, uint64_t file_id,
				    struct trec_file_deltas *d, const char *name);
/* Waits up to timeout_ms until every submitted file is loaded; false on
 * timeout. */
bool trec_delta_loader_drain(struct trec_delta_loader *l, unsigned timeout_ms);
/* Stops the thread, dropping what is still queued, and waits at most
 * wait_ms for a load in progress (a huge file takes seconds). false: the
 * thread is still loading; the loader and the maps it writes must then be
 * left alone until the process exits. */
bool trec_delta_loader_stop(struct trec_delta_loader *l, unsigned wait_ms);
/* Frees the loader (after trec_delta_loader_stop() returned true). */
void trec_delta_loader_destroy(struct trec_delta_loader *l);

#endif /* TREC_DELTA_LOADER_H */
