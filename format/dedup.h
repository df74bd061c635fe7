/* SPDX-License-Identifier: MIT */
/*
 * The writer's per-chunk dedup table: maps an encoded table entry (a stack
 * or a thread payload) to its index in the chunk. Keys are not copied: an
 * entry names the payload's offset in the chunk buffer, which holds the
 * bytes anyway, so dedup costs 8 bytes per distinct entry plus the index
 * table's slots (format/containers/index_table.h).
 */
#ifndef TREC_DEDUP_H
#define TREC_DEDUP_H

#include <stddef.h>
#include <stdint.h>
#include "format/containers/index_table.h"

struct trec_dedup_entry {
	uint32_t off, len; /* payload in the chunk buffer */
};

struct trec_dedup {
	struct trec_itab index;
	struct trec_dedup_entry *ents;
	size_t cap;
	uint32_t count; /* entries, = next index */
};

uint64_t trec_hash(const void *p, size_t len);
/* Index of the entry equal to key, or -1. base is the chunk buffer. */
int64_t trec_dedup_find(const struct trec_dedup *d, const uint8_t *base,
			const void *key, uint32_t len, uint64_t hash);
/* Adds an entry (known absent); returns its index or -ENOMEM. */
int64_t trec_dedup_add(struct trec_dedup *d, uint64_t hash, uint32_t off, uint32_t len);
/* Adds an entry no find will look for (its bytes are not hashed): its
 * index, or -ENOMEM. */
int64_t trec_dedup_add_unindexed(struct trec_dedup *d, uint32_t off, uint32_t len);
/* Forgets every entry (a new chunk begins); keeps the memory. */
void trec_dedup_reset(struct trec_dedup *d);
void trec_dedup_free(struct trec_dedup *d);

#endif /* TREC_DEDUP_H */
