// SPDX-License-Identifier: MIT
/* Whole traces from BPF's trace deltas (see trace_delta.h). */
#include <stdlib.h>
#include <string.h>
#include "record/io/trace_delta.h"

#define FRAME_BYTES sizeof(struct trec_frame)

static struct trec_trace_base_pair *pair_of(struct trec_trace_bases *b, uint32_t cpu)
{
	return cpu < b->cap ? b->by_cpu[cpu] : NULL;
}

static struct trec_trace_base_slot *slot_of(struct trec_trace_bases *b, uint32_t cpu)
{
	struct trec_trace_base_pair *p = pair_of(b, cpu);

	return p ? &p->slot[p->cur] : NULL;
}

struct trec_trace *trec_trace_base(struct trec_trace_bases *b, uint32_t cpu)
{
	struct trec_trace_base_slot *slot = slot_of(b, cpu);

	return slot ? &slot->t : NULL;
}

/* cpu's pair, made on first use; NULL if it cannot be. */
static struct trec_trace_base_pair *base_pair(struct trec_trace_bases *b, uint32_t cpu)
{
	if (cpu >= TREC_DELTA_MAX_CPUS)
		return NULL;
	if (cpu >= b->cap) {
		uint32_t cap = cpu + 1 > 2 * b->cap ? cpu + 1 : 2 * b->cap;
		struct trec_trace_base_pair **p = realloc(b->by_cpu, cap * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + b->cap, 0, (cap - b->cap) * sizeof(*p));
		b->by_cpu = p;
		b->cap = cap;
	}
	if (!b->by_cpu[cpu])
		b->by_cpu[cpu] = calloc(1, sizeof(struct trec_trace_base_pair)); /* seq 0: no base */
	return b->by_cpu[cpu];
}

/* Into slot: the key blocks of t's first `frames` frames (and their
 * blocks' rest); t is slot's trace, or the one about to be copied there. */
static void hash_blocks(struct trec_trace_base_slot *slot, const struct trec_trace *t,
			uint32_t frames)
{
	uint32_t n = t->num_frames;

	for (uint32_t i = 0; i < TREC_KEY_BLOCKS(frames) && i < TREC_KEY_BLOCKS(n); i++)
		slot->blocks[i] = trec_key_block(t->frames, n, i);
}

/* t (whole, len bytes) is now its CPU's base; NULL if it cannot be. Its
 * blocks are hashed from the message, and its key's stack-cache slot
 * fetched, before the copy: the slot's cache miss overlaps the copy (and
 * the writer's work on the trace before it, consumer.c; fetched after
 * the copy, by the consumer, cost the writer 5-8% more). */
static struct trec_trace_base_slot *keep(struct trec_trace_bases *b, const struct trec_trace *t,
					 size_t len, struct trec_stack_key *key)
{
	struct trec_trace_base_pair *p = base_pair(b, t->cpu);
	struct trec_trace_base_slot *slot;

	if (!p)
		return NULL;
	/* Not over the base: it may be a trace the caller still holds. */
	p->cur ^= 1;
	slot = &p->slot[p->cur];
	hash_blocks(slot, t, t->num_frames);
	if (key) {
		*key = trec_stack_key_blocks(slot->blocks, t->num_frames, t->kernel_stack_id);
		if (b->prefetch)
			trec_stack_cache_prefetch(b->prefetch, *key);
	}
	memcpy(&slot->t, t, len);
	return slot;
}

/* No base for cpu until its next whole trace. */
static void forget(struct trec_trace_bases *b, uint32_t cpu)
{
	struct trec_trace *slot = trec_trace_base(b, cpu);

	if (slot)
		slot->seq = 0;
}

static void key_of_slot(const struct trec_trace_base_slot *slot, struct trec_stack_key *key)
{
	if (key)
		*key = trec_stack_key_blocks(slot->blocks, slot->t.num_frames,
					     slot->t.kernel_stack_id);
}

static void key_of_frames(const struct trec_trace *t, struct trec_stack_key *key)
{
	if (key)
		*key = trec_stack_key(t->frames, t->num_frames, t->kernel_stack_id);
}

static uint32_t seq_before(uint32_t seq)
{
	return seq == 1 ? UINT32_MAX : seq - 1; /* BPF skips 0 when it wraps */
}

/* Whether base is the trace the delta t was cut from. */
static int is_base_of(const struct trec_trace *base, const struct trec_trace *t)
{
	return base && base->seq && base->seq == seq_before(t->seq) && base->pid == t->pid &&
	       base->tid == t->tid && base->num_frames == t->num_frames;
}

enum trec_delta_result trec_trace_delta_apply(struct trec_trace_bases *b, const void *msg,
					      size_t len, struct trec_trace *scratch,
					      const struct trec_trace **whole, size_t *whole_len,
					      struct trec_stack_key *key)
{
	const struct trec_trace *t = msg;
	struct trec_trace_base_slot *slot = NULL;
	struct trec_trace *base, *out = scratch;
	uint32_t n, d;

	if (len < TREC_TRACE_HEADER_SIZE || t->num_frames > TREC_MAX_FRAMES)
		return TREC_DELTA_BAD;
	n = t->num_frames;
	if (t->msg_type == TREC_MSG_TRACE) {
		if (len < TREC_TRACE_HEADER_SIZE + n * FRAME_BYTES)
			return TREC_DELTA_BAD;
		if (t->seq)
			slot = keep(b, t, TREC_TRACE_HEADER_SIZE + n * FRAME_BYTES, key);
		if (!slot)
			key_of_frames(t, key);
		*whole = slot ? &slot->t : t;
		*whole_len = TREC_TRACE_HEADER_SIZE + n * FRAME_BYTES;
		return TREC_DELTA_WHOLE;
	}
	d = t->delta_frames;
	if (t->msg_type != TREC_MSG_TRACE_DELTA || !t->seq || d == 0 || d >= n ||
	    len < TREC_TRACE_HEADER_SIZE + d * FRAME_BYTES)
		return TREC_DELTA_BAD;
	slot = slot_of(b, t->cpu);
	base = slot ? &slot->t : NULL;
	if (!is_base_of(base, t)) {
		/* Never another trace's callers: the leaf, and why no more. */
		memcpy(out, t, TREC_TRACE_HEADER_SIZE + FRAME_BYTES);
		out->msg_type = TREC_MSG_TRACE;
		out->delta_frames = 0;
		out->frames[1] = (struct trec_frame){
			.addr_or_line = TREC_ERR_DELTA_NO_BASE,
			.kind = TREC_FRAME_UNKNOWN,
			.flags = TREC_FRAME_F_ERROR,
		};
		out->num_frames = 2;
		key_of_frames(out, key);
		*whole = out;
		*whole_len = TREC_TRACE_HEADER_SIZE + 2 * FRAME_BYTES;
		forget(b, t->cpu);
		return TREC_DELTA_NO_BASE;
	}
	/* In place: the base has the same number of frames and keeps the
	 * ones past d, so it becomes this trace (and the next one's base)
	 * for a copy of the new frames alone. */
	memcpy(base, t, TREC_TRACE_HEADER_SIZE + d * FRAME_BYTES);
	base->msg_type = TREC_MSG_TRACE;
	base->delta_frames = 0;
	/* The blocks past the new frames are the base's, unchanged. */
	hash_blocks(slot, base, d);
	key_of_slot(slot, key);
	*whole = base;
	*whole_len = TREC_TRACE_HEADER_SIZE + n * FRAME_BYTES;
	return TREC_DELTA_REBUILT;
}

void trec_trace_bases_free(struct trec_trace_bases *b)
{
	for (uint32_t i = 0; i < b->cap; i++)
		free(b->by_cpu[i]);
	free(b->by_cpu);
	b->by_cpu = NULL;
	b->cap = 0;
}
