/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing hash map from u64 keys to pointers, for trecord's
 * per-pid, per-file and per-stack-id tables. Not thread-safe: each table
 * belongs to one thread.
 */
#ifndef TREC_U64MAP_H
#define TREC_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct trec_u64map {
	uint64_t *keys;
	void **vals;   /* NULL marks an empty slot: values must be non-NULL */
	size_t cap;    /* power of two, or 0 */
	size_t n;
};

void *trec_u64map_get(const struct trec_u64map *m, uint64_t key);
/* Inserts or replaces; returns the previous value (or NULL). On allocation
 * failure returns NULL and sets *err to -ENOMEM (err may be NULL). */
void *trec_u64map_put(struct trec_u64map *m, uint64_t key, void *val, int *err);
/* Inserts val, an allocation new to the map, under key: returns val, or
 * NULL after freeing val when the map cannot grow (val may be NULL: a
 * failed allocation, returned as is). Replaces get-or-calloc-put-or-free. */
void *trec_u64map_put_new(struct trec_u64map *m, uint64_t key, void *val);
/* Removes key; returns its value or NULL. */
void *trec_u64map_del(struct trec_u64map *m, uint64_t key);
/* Iteration: for (size_t i = 0; trec_u64map_next(m, &i, &k, &v);) */
int trec_u64map_next(const struct trec_u64map *m, size_t *iter, uint64_t *key, void **val);
void trec_u64map_free(struct trec_u64map *m);

#endif /* TREC_U64MAP_H */
