/* SPDX-License-Identifier: MIT */
/*
 * From the BPF ring buffer to records: the writer thread reads the ring
 * and turns its traces and pid events into SAMPLE, PID_EVENT and KSYMS
 * records.
 */
#ifndef TREC_CONSUMER_H
#define TREC_CONSUMER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "format/containers/u64map.h"
#include "record/io/stack_cache.h"
#include "record/io/trace_delta.h"
#include "record/kernel/ksyms_lazy.h"
#include "record/procs/exit_fifo.h"
#include "record/unwind/deferred/deferred_queue.h"

struct ring_buffer;
struct trec_output;
struct trec_pid_event_msg;
struct trec_jit_capture;
struct trec_interps;
struct trec_touched;
struct trecord_counters;

/* What the consumer works with; owned by the caller, valid until free. */
struct trec_consumer_ctx {
	struct trec_output *out;
	struct trecord_counters *cnt;
	struct trec_touched *touched;      /* files samples hit, or NULL */
	struct trec_interps *interps;      /* interpreter backends, or NULL */
	struct trec_jit_capture *jit;      /* perf maps, jitdump (record/jit/capture.h) */
	struct trec_kallsyms *ksyms;       /* empty; read at the first kernel frame */
	bool quiet;                        /* no warning when it cannot be read */
	int ring_fd, stackmap_fd;
	/* Writer thread: each pid event, before it is written. */
	void (*on_pid_event)(void *arg, const struct trec_pid_event_msg *m);
	void *on_pid_event_arg;
	/* The maps a deferred sample's resumed walk reads (deferred_walk.h). */
	struct trec_deferred_walk_fds defer_fds;
	const atomic_uint_fast64_t *loads_finished; /* the delta loader's */
	const atomic_uint_fast64_t *loads_queued;   /* its loads not ended yet */
};

struct trec_consumer {
	struct trec_consumer_ctx x;
	struct ring_buffer *rb;
	pthread_t writer_thread;
	bool started;
	atomic_bool stop;
	/* writer thread only */
	struct trec_trace_bases bases; /* what trace deltas extend */
	struct trec_trace rebuilt;     /* a delta without its base, made whole */
	struct trec_u64map kstacks;   /* kernel stack id -> struct trec_kstack */
	struct trec_u64map seen_pids; /* live pids with samples */
	uint32_t last_seen_pid;       /* in seen_pids, or UINT32_MAX */
	struct trec_stack_cache stacks; /* the chunk's stacks, by their raw frames */
	uint64_t pids_done;           /* ... and those that ended */
	struct trec_exit_fifo exited; /* ended, in their grace period */
	uint64_t swept_ns;
	struct trec_ksyms_lazy ksyms; /* kernel symbols the stacks use */
	uint64_t ksyms_written_ns;
	struct trec_deferred deferred; /* samples waiting for deltas */
	/* A whole trace kept as its CPU's base, written once the next one's
	 * key is known (consumer.c: its stack-cache slot is fetched then). */
	const struct trec_trace *pending;
	size_t pending_len;
	struct trec_stack_key pending_key;
	struct trec_writer *held;     /* the output, locked since a known-stack sample */
	uint32_t held_samples;        /* ... written since */
};

/* Sets the context; nothing runs yet. 0 or -ENOMEM. */
int trec_consumer_init(struct trec_consumer *c, const struct trec_consumer_ctx *x);
/* Starts the writer thread. 0 or a negative errno. */
int trec_consumer_start(struct trec_consumer *c);
/* Lets the writer drain the ring buffer and finish. */
void trec_consumer_stop(struct trec_consumer *c);
/* Processes that had samples. */
size_t trec_consumer_pids_seen(const struct trec_consumer *c);
void trec_consumer_free(struct trec_consumer *c);

#endif /* TREC_CONSUMER_H */
