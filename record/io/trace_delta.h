/* SPDX-License-Identifier: MIT */
/*
 * Whole traces from BPF's trace deltas (bpf/trace_delta.h): a
 * TREC_MSG_TRACE_DELTA carries a trace's header and first delta_frames
 * frames; the rest are those of the trace sent from the same CPU's record
 * just before it (seq - 1). This keeps, per CPU, the last such trace,
 * whole, and rebuilds deltas from it. Messages must come in ring order;
 * some may be missing (a batch the writer's queue refused): the seq check
 * below sees the gap.
 *
 * A delta whose base is not the one kept (lost, or never seen) is never
 * completed with other frames: it becomes its leaf and a DELTA_NO_BASE
 * error frame, and that CPU has no base until its next whole trace.
 */
#ifndef TREC_RECORD_TRACE_DELTA_H
#define TREC_RECORD_TRACE_DELTA_H

#include <stddef.h>
#include <stdint.h>
#include "record/io/stack_cache.h"
#include "trec_types.h"

/* CPUs whose bases are kept; a cpu past it is treated as one with none. */
#define TREC_DELTA_MAX_CPUS 4096

/* A CPU's base and its frames' key blocks (stack_cache.h), kept in step. */
struct trec_trace_base_slot {
	struct trec_trace t;
	struct trec_key_block blocks[TREC_KEY_BLOCKS(TREC_MAX_FRAMES)];
};

/* Two per CPU: a whole trace goes into the one that is not the base, so
 * the trace it replaces as the base stays whole until the next one (the
 * writer finishes a trace after the next one's key is known). */
struct trec_trace_base_pair {
	struct trec_trace_base_slot slot[2];
	uint32_t cur; /* the base */
};

struct trec_trace_bases {
	struct trec_trace_base_pair **by_cpu; /* NULL: no base for that cpu yet */
	uint32_t cap;
	/* If set: a whole trace's key's slot is fetched while it is copied. */
	const struct trec_stack_cache *prefetch;
};

enum trec_delta_result {
	TREC_DELTA_WHOLE,   /* a whole trace: use the message as it is */
	TREC_DELTA_REBUILT, /* a delta, completed from its base into *out */
	TREC_DELTA_NO_BASE, /* a delta without its base: *out is leaf + error */
	TREC_DELTA_BAD,     /* malformed: drop it (BAD_MESSAGES) */
};

/*
 * msg: a TREC_MSG_TRACE or TREC_MSG_TRACE_DELTA message of len bytes
 * (hostile). A whole trace sent from a record (seq != 0) becomes its
 * CPU's base. A delta is rebuilt in its base, which it then is (msg_type
 * TREC_MSG_TRACE). *whole is the trace made whole, *whole_len its bytes:
 * msg itself, the base, or (NO_BASE) scratch; valid until the next call,
 * but for a whole trace kept as its CPU's base (not msg): that one stays
 * until the call after the next, unless the next is a delta of its CPU.
 * key, if not NULL: *whole's trec_stack_key, from the base's blocks when
 * it is a base (a delta hashes only the blocks of its new frames).
 */
enum trec_delta_result trec_trace_delta_apply(struct trec_trace_bases *b, const void *msg,
					      size_t len, struct trec_trace *scratch,
					      const struct trec_trace **whole, size_t *whole_len,
					      struct trec_stack_key *key);

/* The base kept for cpu, or NULL (tests poison it). */
struct trec_trace *trec_trace_base(struct trec_trace_bases *b, uint32_t cpu);
void trec_trace_bases_free(struct trec_trace_bases *b);

#endif /* TREC_RECORD_TRACE_DELTA_H */
