// SPDX-License-Identifier: MIT
/* Chunk-local stack and thread entries, found by their payload bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "dedup.h"
#include "format/containers/vec.h"

/* XXH3 (the xxhash header, inlined: no library to link): stacks are
 * ~1 KiB, hashed per sample, and XXH3 reads 16-32 bytes per cycle. */
uint64_t trec_hash(const void *p, size_t len)
{
	return XXH3_64bits(p, len);
}

struct probe {
	const struct trec_dedup *d;
	const uint8_t *base;
	const void *key;
	uint32_t len;
};

static bool same_payload(const void *ctx, uint32_t idx)
{
	const struct probe *p = ctx;
	const struct trec_dedup_entry *e = &p->d->ents[idx];

	return e->len == p->len && !memcmp(p->base + e->off, p->key, p->len);
}

int64_t trec_dedup_find(const struct trec_dedup *d, const uint8_t *base,
			const void *key, uint32_t len, uint64_t hash)
{
	struct probe p = { d, base, key, len };
	uint32_t idx = trec_itab_find(&d->index, hash, same_payload, &p);

	return idx == TREC_ITAB_NONE ? -1 : (int64_t)idx;
}

int64_t trec_dedup_add(struct trec_dedup *d, uint64_t hash, uint32_t off, uint32_t len)
{
	if (d->count == UINT32_MAX - 1 || TREC_GROW(d->ents, d->cap, d->count + 1, 1024) ||
	    trec_itab_insert(&d->index, hash, d->count))
		return -ENOMEM;
	d->ents[d->count] = (struct trec_dedup_entry){ off, len };
	return d->count++;
}

int64_t trec_dedup_add_unindexed(struct trec_dedup *d, uint32_t off, uint32_t len)
{
	if (d->count == UINT32_MAX - 1 || TREC_GROW(d->ents, d->cap, d->count + 1, 1024))
		return -ENOMEM;
	d->ents[d->count] = (struct trec_dedup_entry){ off, len };
	return d->count++;
}

void trec_dedup_reset(struct trec_dedup *d)
{
	trec_itab_clear(&d->index);
	d->count = 0;
}

void trec_dedup_free(struct trec_dedup *d)
{
	trec_itab_free(&d->index);
	free(d->ents);
	memset(d, 0, sizeof(*d));
}
