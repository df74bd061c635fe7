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
#include "msg_queue.h"
#include "unwind_tables.h"

struct trec_delta_loader {
	struct trec_delta_store *store; /* used by the loading thread only */
	struct trec_msg_queue jobs;
	pthread_t thread;
	bool threaded, verbose;
	atomic_uint_fast64_t loaded, failed, queued;
	/* Store usage, published after each load. */
	atomic_uint_fast32_t deltas_used, infos_used, pages_used;
};

int trec_delta_loader_init(struct trec_delta_loader *l, const struct trec_delta_sink_ops *ops,
			   void *ctx, bool verbose);
/* Starts the loading thread. */
int trec_delta_loader_start(struct trec_delta_loader *l);
/* Loads the deltas of the file open at fd (taken over: closed when done).
 * name is for messages. 0 or negative errno (fd closed then too). */
int trec_delta_loader_submit(struct trec_delta_loader *l, uint64_t file_id, int fd,
			     const char *name);
/* Waits until every submitted file is loaded (tests, shutdown). */
void trec_delta_loader_drain(struct trec_delta_loader *l);
/* Stops the thread, dropping what is still queued. */
void trec_delta_loader_destroy(struct trec_delta_loader *l);

#endif /* TREC_DELTA_LOADER_H */
