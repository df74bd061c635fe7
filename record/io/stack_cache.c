// SPDX-License-Identifier: MIT
/* Raw trace frames -> their stack's index in the chunk being written (stack_cache.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#define XXH_STATIC_LINKING_ONLY /* XXH3_generateSecret_fromSeed */
#include <xxhash.h>

#include "record/io/stack_cache.h"
#include "trec_format.h"
#include "trec_types.h"

/* A chunk (2 MiB, record/io/output.c, a second at most) holds a few thousand new
 * stacks at -a -F 20000; past this many its later ones are not kept. */
#define STACK_CACHE_MAX (64u << 10)

/* Block b's secret, derived once from its number: each block hashes as
 * XXH3_128bits_withSeed(.., b) would, without deriving a secret from the
 * seed per call (which a block past 240 bytes would). */
static unsigned char block_secrets[TREC_KEY_BLOCKS(TREC_MAX_FRAMES)][XXH3_SECRET_DEFAULT_SIZE];
static pthread_once_t block_secrets_once = PTHREAD_ONCE_INIT;

static void derive_block_secrets(void)
{
	for (uint32_t b = 0; b < TREC_KEY_BLOCKS(TREC_MAX_FRAMES); b++)
		XXH3_generateSecret_fromSeed(block_secrets[b], b);
}

struct trec_key_block trec_key_block(const struct trec_frame *f, uint32_t n, uint32_t b)
{
	uint32_t first = b * TREC_KEY_BLOCK_FRAMES, k = n - first;
	XXH128_hash_t h;

	pthread_once(&block_secrets_once, derive_block_secrets);
	if (k > TREC_KEY_BLOCK_FRAMES)
		k = TREC_KEY_BLOCK_FRAMES;
	h = XXH3_128bits_withSecretandSeed(f + first, (size_t)k * sizeof(*f), block_secrets[b],
					   sizeof(block_secrets[b]), b);
	return (struct trec_key_block){ h.low64, h.high64 };
}

struct trec_stack_key trec_stack_key_blocks(const struct trec_key_block *blocks, uint32_t n,
					    int32_t kstack_id)
{
	uint64_t v[3] = { 0, 0, n };
	XXH128_hash_t h;

	for (uint32_t b = 0; b < TREC_KEY_BLOCKS(n); b++) {
		v[0] += blocks[b].lo;
		v[1] += blocks[b].hi;
	}
	h = XXH3_128bits_withSeed(v, sizeof(v), (uint32_t)kstack_id);
	/* {0, 0} marks an empty slot: that one hash shares a key with {1, 0}. */
	return (struct trec_stack_key){ h.low64 | !(h.low64 | h.high64), h.high64 };
}

struct trec_stack_key trec_stack_key(const struct trec_frame *f, uint32_t n, int32_t kstack_id)
{
	struct trec_key_block blocks[TREC_KEY_BLOCKS(TREC_MAX_FRAMES)];

	if (n > TREC_MAX_FRAMES)
		n = TREC_MAX_FRAMES;
	for (uint32_t b = 0; b < TREC_KEY_BLOCKS(n); b++)
		blocks[b] = trec_key_block(f, n, b);
	return trec_stack_key_blocks(blocks, n, kstack_id);
}

static bool is_empty(const struct trec_stack_cache_ent *e)
{
	return !e->key.lo && !e->key.hi;
}

/* key's slot: its entry, or the empty slot where it goes. */
static struct trec_stack_cache_ent *slot_of(const struct trec_stack_cache *sc,
					    struct trec_stack_key key)
{
	for (size_t j = key.lo & (sc->cap - 1);; j = (j + 1) & (sc->cap - 1)) {
		struct trec_stack_cache_ent *e = &sc->slots[j];

		if (is_empty(e) || (e->key.lo == key.lo && e->key.hi == key.hi))
			return e;
	}
}

void trec_stack_cache_prefetch(const struct trec_stack_cache *sc, struct trec_stack_key key)
{
	if (sc->cap)
		__builtin_prefetch(&sc->slots[key.lo & (sc->cap - 1)]);
}

static struct trec_stack_cache_ent *find(const struct trec_stack_cache *sc,
					 struct trec_stack_key key)
{
	struct trec_stack_cache_ent *e = sc->cap ? slot_of(sc, key) : NULL;

	return e && !is_empty(e) ? e : NULL;
}

static int grow(struct trec_stack_cache *sc)
{
	size_t ncap = sc->cap ? sc->cap * 2 : 4096;
	struct trec_stack_cache old = *sc;

	sc->slots = calloc(ncap, sizeof(*sc->slots));
	if (!sc->slots) {
		sc->slots = old.slots;
		return -1;
	}
	sc->cap = ncap;
	for (size_t i = 0; i < old.cap; i++)
		if (!is_empty(&old.slots[i]))
			*slot_of(sc, old.slots[i].key) = old.slots[i];
	free(old.slots);
	return 0;
}

int trec_stack_cache_write_known(struct trec_stack_cache *sc, struct trec_writer *w,
				 struct trec_stack_key key, const struct trec_sample *s)
{
	struct trec_stack_cache_ent *e = find(sc, key);

	/* The writer refuses an index of a chunk that has ended. */
	return e ? trec_write_sample_in_stack(w, s, sc->chunk, e->stack_idx) : 1;
}

/* Entries of another chunk name another table: forget them. */
static void follow_chunk(struct trec_stack_cache *sc, uint64_t chunk)
{
	if (sc->chunk == chunk)
		return;
	if (sc->count)
		memset(sc->slots, 0, sc->cap * sizeof(*sc->slots));
	sc->count = 0;
	sc->chunk = chunk;
}

/* Room for one more entry, in this chunk or a fresh one. */
static bool reserve(struct trec_stack_cache *sc)
{
	return sc->count + 1 < STACK_CACHE_MAX && ((sc->count + 2) * 2 <= sc->cap || !grow(sc));
}

int trec_stack_cache_write_new(struct trec_stack_cache *sc, struct trec_writer *w,
			       struct trec_stack_key key, const struct trec_sample *s, bool keep,
			       bool *stack_new)
{
	/* A stack this cache will hold is found here from now on, never by
	 * the writer's own lookup of its bytes: spare that lookup (and its
	 * index's cache miss). */
	bool claim = keep && reserve(sc);
	int err = claim ? trec_write_sample_unshared(w, s) : trec_write_sample(w, s);
	uint64_t chunk;
	uint32_t idx;

	*stack_new = trec_writer_last_stack(w, &chunk, &idx);
	if (err || !keep)
		return err;
	follow_chunk(sc, chunk);
	if (sc->count >= STACK_CACHE_MAX || ((sc->count + 1) * 2 > sc->cap && grow(sc)))
		return 0;
	*slot_of(sc, key) = (struct trec_stack_cache_ent){ .key = key, .stack_idx = idx };
	sc->count++;
	return 0;
}

void trec_stack_cache_free(struct trec_stack_cache *sc)
{
	free(sc->slots);
	memset(sc, 0, sizeof(*sc));
}
