/* SPDX-License-Identifier: MIT */
/*
 * The containers' hash seed: one random value per process, mixed into
 * every slot choice, so that keys taken from a hostile file (file ids,
 * pcs, stack hashes) cannot be chosen to pile into one probe run and make
 * a lookup linear (hash flooding). Iteration order is never output order
 * in treport (its tables iterate by index), so outputs stay reproducible.
 */
#ifndef TREC_HASH_SEED_H
#define TREC_HASH_SEED_H

#include <stdint.h>

uint64_t trec_hash_seed_init(void);

static inline uint64_t trec_hash_seed(void)
{
	extern uint64_t trec_hash_seed_value;
	uint64_t s = __atomic_load_n(&trec_hash_seed_value, __ATOMIC_RELAXED);

	return s ? s : trec_hash_seed_init();
}

/* A bijective 64-bit mix (MurmurHash3's finalizer) of key under the seed. */
static inline uint64_t trec_hash_mix(uint64_t key)
{
	key ^= trec_hash_seed();
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ULL;
	key ^= key >> 33;
	return key;
}

#endif /* TREC_HASH_SEED_H */
