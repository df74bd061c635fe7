/* SPDX-License-Identifier: MIT */
/*
 * The stacks of the chunk being written, found by their traces' raw
 * frames. A sample whose BPF frames and kernel stack id match a trace
 * already written in this chunk reuses that trace's stack table entry
 * (trec_write_sample_in_stack): no frame conversion, no encoding, no
 * hash of the encoded stack, no kernel stack lookup, no touched-file
 * notes (those were done then). At -a -F 20000 those were most of the
 * writer's time per sample. The file is what trec_write_sample writes,
 * byte for byte.
 *
 * A trace is known by a 128-bit key of its frames and kernel stack id
 * (the block sums below), as otel-ebpf-profiler knows its traces: two
 * traces with the same key are the same one (a collision among 2^32
 * traces has odds of 2^-64).
 *
 * Only stacks that mean the same whatever the process are kept: no
 * runtime pc (noted per pid for its JIT symbols and files) and no
 * interpreter frame (its code objects are described per pid); the caller
 * decides. Entries name an index in one chunk's table (of one writer) and
 * are forgotten when another chunk begins, so the memory is the largest
 * chunk's, bounded by STACK_CACHE_MAX entries. (Keeping stacks across
 * chunks, with their encoded payloads, saved no CPU that could be
 * measured and grew trecord's memory to its bound.)
 */
#ifndef TREC_STACK_CACHE_H
#define TREC_STACK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trec_frame;
struct trec_sample;
struct trec_writer;

struct trec_stack_key {
	uint64_t lo, hi;
};

/* A slot of the table: the entry itself, so that a lookup (most samples)
 * costs one cache miss. Key {0, 0}: empty. */
struct trec_stack_cache_ent {
	struct trec_stack_key key;
	uint32_t stack_idx; /* in chunk's stack table */
};

struct trec_stack_cache {
	struct trec_stack_cache_ent *slots; /* open addressing, at most half full */
	size_t cap, count;                  /* cap: 0 or a power of two */
	uint64_t chunk;                     /* trec_writer_last_stack's token */
};

/*
 * The key: the sum of 128-bit XXH3 hashes of the frames in blocks of
 * TREC_KEY_BLOCK_FRAMES from the leaf, each seeded with its block's
 * number, folded with the frame count and kernel stack id. A trace delta
 * (trace_delta.h) changes only the blocks of its new frames: its key is
 * the base's with those blocks hashed again, not its 1-6 KB all over.
 * Blocks of 32 frames (768 bytes) take XXH3's long-input path, which
 * hashes 42 frames in 57 ns and 155 in 183 (8-frame blocks: 72 and 257);
 * each block's secret is derived from its seed once, not per call.
 */
#define TREC_KEY_BLOCK_FRAMES 32u
#define TREC_KEY_BLOCKS(n) (((n) + TREC_KEY_BLOCK_FRAMES - 1) / TREC_KEY_BLOCK_FRAMES)

struct trec_key_block {
	uint64_t lo, hi;
};

/* Block b of the n frames f (b < TREC_KEY_BLOCKS(n)). */
struct trec_key_block trec_key_block(const struct trec_frame *f, uint32_t n, uint32_t b);
/* The key of n frames from their TREC_KEY_BLOCKS(n) block hashes. */
struct trec_stack_key trec_stack_key_blocks(const struct trec_key_block *blocks, uint32_t n,
					    int32_t kstack_id);
struct trec_stack_key trec_stack_key(const struct trec_frame *f, uint32_t n, int32_t kstack_id);

/* Starts loading key's slot into the cache, for a lookup soon after. */
void trec_stack_cache_prefetch(const struct trec_stack_cache *sc, struct trec_stack_key key);

/* Under the writer's lock (both write what trec_write_sample would): */
/* s without its frames, if the chunk being written has the stack of the
 * trace with this key. 0 written, 1 not (write it whole), < 0 the
 * writer's error. */
int trec_stack_cache_write_known(struct trec_stack_cache *sc, struct trec_writer *w,
				 struct trec_stack_key key, const struct trec_sample *s);
/* s whole; then, if keep (its frames mean the same in any process), the
 * cache knows where its stack is (known absent from this chunk's
 * entries). *stack_new: trec_writer_last_stack's. */
int trec_stack_cache_write_new(struct trec_stack_cache *sc, struct trec_writer *w,
			       struct trec_stack_key key, const struct trec_sample *s, bool keep,
			       bool *stack_new);
void trec_stack_cache_free(struct trec_stack_cache *sc);

#endif /* TREC_STACK_CACHE_H */
