// SPDX-License-Identifier: MIT
/* Raw trace frames -> stack index in the chunk being written (stack_cache.h). */
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/containers/vec.h"
#include "record/io/stack_cache.h"
#include "trec_format.h"
#include "trec_types.h"

/* A 1 MiB chunk (the default) holds about 100k samples; at most that many
 * stacks, and the memory (2 MiB) whatever the chunk size. */
#define STACK_CACHE_MAX (128u << 10)

struct trec_stack_key trec_stack_key(const struct trec_frame *f, uint32_t n, int32_t kstack_id)
{
	XXH128_hash_t h = XXH3_128bits_withSeed(f, (size_t)n * sizeof(*f), (uint32_t)kstack_id);

	return (struct trec_stack_key){ h.low64, h.high64 };
}

struct probe {
	const struct trec_stack_cache *sc;
	struct trec_stack_key key;
};

static bool same_key(const void *ctx, uint32_t i)
{
	const struct probe *p = ctx;
	const struct trec_stack_key *k = &p->sc->ents[i].key;

	return k->lo == p->key.lo && k->hi == p->key.hi;
}

bool trec_stack_cache_find(const struct trec_stack_cache *sc, struct trec_stack_key key,
			   uint32_t *seq, uint32_t *stack_idx)
{
	struct probe p = { sc, key };
	uint32_t i = trec_itab_find(&sc->index, key.lo, same_key, &p);

	if (i == TREC_ITAB_NONE)
		return false;
	*seq = sc->seq;
	*stack_idx = sc->ents[i].stack_idx;
	return true;
}

void trec_stack_cache_add(struct trec_stack_cache *sc, uint32_t seq, struct trec_stack_key key,
			  uint32_t stack_idx)
{
	/* Entries of an earlier chunk name another table: forget them. */
	if (sc->seq != seq) {
		trec_itab_clear(&sc->index);
		sc->count = 0;
		sc->seq = seq;
	}
	if (sc->count >= STACK_CACHE_MAX ||
	    TREC_GROW(sc->ents, sc->cap, (size_t)sc->count + 1, 1024) ||
	    trec_itab_insert(&sc->index, key.lo, sc->count))
		return;
	sc->ents[sc->count++] = (struct trec_stack_cache_ent){ key, stack_idx };
}

int trec_stack_cache_write_known(const struct trec_stack_cache *sc, struct trec_writer *w,
				 struct trec_stack_key key, const struct trec_sample *s)
{
	uint32_t seq, idx;

	if (!trec_stack_cache_find(sc, key, &seq, &idx))
		return 1;
	return trec_write_sample_in_stack(w, s, seq, idx);
}

int trec_stack_cache_write_new(struct trec_stack_cache *sc, struct trec_writer *w,
			       struct trec_stack_key key, const struct trec_sample *s, bool keep,
			       bool *stack_new)
{
	int err = trec_write_sample(w, s);
	uint32_t seq, idx;

	*stack_new = trec_writer_last_stack(w, &seq, &idx);
	/* Absent: the lookup before missed, or found an ended chunk's entry
	 * (this write began another, which forgets it). */
	if (!err && keep)
		trec_stack_cache_add(sc, seq, key, idx);
	return err;
}

void trec_stack_cache_free(struct trec_stack_cache *sc)
{
	trec_itab_free(&sc->index);
	free(sc->ents);
	memset(sc, 0, sizeof(*sc));
}
