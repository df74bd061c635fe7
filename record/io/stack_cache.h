/* SPDX-License-Identifier: MIT */
/*
 * The stacks of the chunk being written, found by their traces' raw
 * frames. A sample whose BPF frames and kernel stack id match a trace
 * already written in this chunk reuses that trace's stack table entry
 * (trec_write_sample_in_stack): no frame conversion, no encoding, no
 * hash of the encoded stack. At -a -F 20000 those were two thirds of
 * the writer's time per sample.
 *
 * A trace is known by a 128-bit XXH3 of its frames and kernel stack id,
 * as otel-ebpf-profiler knows its traces: two traces with the same hash
 * are the same one (a collision among 2^32 traces has odds of 2^-64).
 *
 * Only stacks that mean the same whatever the process are kept: no
 * runtime pc (noted per pid for its JIT symbols and files) and no
 * interpreter frame (its code objects are described per pid); the
 * caller decides. The cache follows the writer's chunks: entries name
 * an index in one chunk's stack table and are forgotten when another
 * chunk begins. Bounded: past STACK_CACHE_MAX entries, no more are
 * added until then.
 */
#ifndef TREC_STACK_CACHE_H
#define TREC_STACK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/containers/index_table.h"

struct trec_frame;
struct trec_sample;
struct trec_writer;

struct trec_stack_key {
	uint64_t lo, hi;
};

struct trec_stack_cache_ent {
	struct trec_stack_key key;
	uint32_t stack_idx; /* in chunk seq's stack table */
};

struct trec_stack_cache {
	struct trec_itab index;
	struct trec_stack_cache_ent *ents;
	size_t cap;
	uint32_t count;
	uint32_t seq; /* the chunk the entries are of */
};

struct trec_stack_key trec_stack_key(const struct trec_frame *f, uint32_t n, int32_t kstack_id);
/* Where a trace with this key was put: entry *stack_idx of chunk *seq's
 * stack table (which may have ended since), or false. */
bool trec_stack_cache_find(const struct trec_stack_cache *sc, struct trec_stack_key key,
			   uint32_t *seq, uint32_t *stack_idx);
/* Remembers that the trace is stack_idx of chunk seq (known absent),
 * forgetting the entries of another chunk. Out of memory or room is a
 * later miss, not an error. */
void trec_stack_cache_add(struct trec_stack_cache *sc, uint32_t seq, struct trec_stack_key key,
			  uint32_t stack_idx);
void trec_stack_cache_free(struct trec_stack_cache *sc);

/* The writer's side, under its lock (both write what trec_write_sample
 * would, byte for byte): */
/* s without its frames, if the cache knows the stack of the trace with
 * this key and the chunk it is in goes on. 0 written, 1 not (write it
 * whole), < 0 the writer's error. */
int trec_stack_cache_write_known(const struct trec_stack_cache *sc, struct trec_writer *w,
				 struct trec_stack_key key, const struct trec_sample *s);
/* s whole; then, if keep (its frames mean the same in any process), the
 * cache knows where its stack is. *stack_new: trec_writer_last_stack's. */
int trec_stack_cache_write_new(struct trec_stack_cache *sc, struct trec_writer *w,
			       struct trec_stack_key key, const struct trec_sample *s, bool keep,
			       bool *stack_new);

#endif /* TREC_STACK_CACHE_H */
