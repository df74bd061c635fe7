/* SPDX-License-Identifier: MIT */
/*
 * A hash table of uint32 indices into an array its caller owns: the caller
 * gives each item's hash and an equality callback, the table never looks
 * at the items. Open addressing, linear probing, load at most 1/2; a slot
 * is (hash32 << 32) | (index + 1), 0 when empty.
 */
#ifndef TREC_INDEX_TABLE_H
#define TREC_INDEX_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trec_itab {
	uint64_t *slots;
	size_t cap, count; /* cap: 0 or a power of two */
};

typedef bool (*trec_itab_eq_fn)(const void *ctx, uint32_t idx);
#define TREC_ITAB_NONE UINT32_MAX

/* The index of an item with this hash that eq accepts, or TREC_ITAB_NONE. */
uint32_t trec_itab_find(const struct trec_itab *t, uint64_t hash, trec_itab_eq_fn eq,
			const void *ctx);
/* Adds idx (< UINT32_MAX, known absent). 0, or -ENOMEM (table unchanged). */
int trec_itab_insert(struct trec_itab *t, uint64_t hash, uint32_t idx);
/* Forgets every index; keeps the memory. */
void trec_itab_clear(struct trec_itab *t);
void trec_itab_free(struct trec_itab *t);

#endif /* TREC_INDEX_TABLE_H */
