/* SPDX-License-Identifier: MIT */
/*
 * Deferred samples waiting for their files' deltas (bpf/deferred_types.h):
 * kept, bounded, and walked again (deferred_walk.h) until the walk gets
 * past the files that were loading; then handed on as ordinary traces.
 * Writer thread only.
 */
#ifndef TREC_DEFERRED_QUEUE_H
#define TREC_DEFERRED_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/unwind/deferred/deferred_pids.h"
#include "record/unwind/deferred/deferred_walk.h"

struct trecord_counters;
struct trec_lookup_memo;

/* Bounds on what waits: past them a sample is written as BPF left it
 * (ending in NO_PAGE_INFO) and counted in DEFERRED_DROPPED. The
 * environment's TREC_DEFER_MAX_PENDING may lower the count (tests). */
#define TREC_DEFERRED_MAX_PENDING 4096
#define TREC_DEFERRED_MAX_BYTES (48u << 20)
/* A sample waits at most this long for a file's deltas (or its pid's
 * sync: TREC_DEFER_F_NO_PID). */
#define TREC_DEFERRED_MAX_WAIT_NS 10000000000ULL

/* Receives each finished trace (header + frames, len bytes). */
typedef void (*trec_deferred_emit_fn)(void *arg, const struct trec_trace *t, size_t len);

struct trec_deferred_entry;

struct trec_deferred {
	struct trec_deferred_walk_fds fds;
	struct trecord_counters *cnt;
	trec_deferred_emit_fn emit;
	void *emit_arg;
	/* Loads ended so far (delta_loader.h): a sample waits for one. */
	const atomic_uint_fast64_t *loads_finished;
	uint64_t tried_loads;
	struct trec_deferred_entry **v;
	size_t n, cap, bytes;
	size_t max_pending;
	size_t nopid; /* of n: TREC_DEFER_F_NO_PID samples */
	/* Fork/exec and gone times (ring and sync threads write it); NULL if
	 * it could not be allocated: NO_PID samples are then written as BPF
	 * would have left them. */
	struct trec_deferred_pids *pids;
	uint64_t tried_ns; /* the last pass over the pending samples */
	/* The pass's successful map lookups (NULL without memory). */
	struct trec_lookup_memo *memo;
	struct trec_trace out; /* a finished trace, on its way to emit */
	atomic_uint_fast32_t waiting; /* n, for other threads */
};

void trec_deferred_init(struct trec_deferred *d, const struct trec_deferred_walk_fds *fds,
			const atomic_uint_fast64_t *loads_finished, struct trecord_counters *cnt,
			trec_deferred_emit_fn emit, void *emit_arg);
/* The bytes of a TREC_MSG_DEFERRED message worth queueing: up to the end
 * of its copied stack. */
size_t trec_deferred_msg_used(const void *data, size_t len);
/* A TREC_MSG_DEFERRED message from the ring buffer (hostile: checked). */
void trec_deferred_add(struct trec_deferred *d, const void *data, size_t len);
/* Walks the pending samples again when a load has ended since the last
 * pass (at most every few ms), NO_PID samples wait for their sync, or the
 * oldest waited too long; final: every one is finished, whatever still
 * loads. A NO_PID sample whose pid was found gone, or exec'd or reused
 * after it, is written as BPF would have left it (leaf, NO_PID_INFO). */
void trec_deferred_poll(struct trec_deferred *d, uint64_t now_ns, bool final);
static inline size_t trec_deferred_pending(const struct trec_deferred *d)
{
	return d->n;
}
void trec_deferred_free(struct trec_deferred *d);

#endif /* TREC_DEFERRED_QUEUE_H */
