// SPDX-License-Identifier: MIT
/* Open-addressing hash table of chunk-local stack and thread entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dedup.h"

/* Word-at-a-time multiply/rotate mix: stacks are ~1 KiB, hashed per sample. */
uint64_t trec_hash(const void *p, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	const uint8_t *b = p;
	uint64_t h = len * k;

	for (; len >= 8; b += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, b, 8);
		h = (h ^ (w * k)) * 0xff51afd7ed558ccdULL;
		h = (h << 29) | (h >> 35);
	}
	uint64_t w = 0;
	memcpy(&w, b, len);
	h ^= w * k;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h;
}

int64_t trec_dedup_find(const struct trec_dedup *d, const uint8_t *base,
			const void *key, uint32_t len, uint64_t hash)
{
	if (!d->cap)
		return -1;
	for (uint32_t i = (uint32_t)hash & (d->cap - 1);; i = (i + 1) & (d->cap - 1)) {
		const struct trec_dedup_slot *s = &d->slots[i];

		if (!s->idx)
			return -1;
		if (s->hash == hash && s->len == len && !memcmp(base + s->off, key, len))
			return s->idx - 1;
	}
}

static int grow(struct trec_dedup *d)
{
	uint32_t cap = d->cap ? d->cap * 2 : 1024;
	struct trec_dedup_slot *slots;

	if (cap < d->cap)
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->cap; i++) {
		struct trec_dedup_slot *s = &d->slots[i];
		uint32_t j;

		if (!s->idx)
			continue;
		for (j = (uint32_t)s->hash & (cap - 1); slots[j].idx; j = (j + 1) & (cap - 1))
			;
		slots[j] = *s;
	}
	free(d->slots);
	d->slots = slots;
	d->cap = cap;
	return 0;
}

int64_t trec_dedup_add(struct trec_dedup *d, uint64_t hash, uint32_t off, uint32_t len)
{
	uint32_t i;

	/* Keep the load at most 1/2 so probes stay short. */
	if ((uint64_t)(d->count + 1) * 2 > d->cap && grow(d))
		return -ENOMEM;
	for (i = (uint32_t)hash & (d->cap - 1); d->slots[i].idx; i = (i + 1) & (d->cap - 1))
		;
	d->slots[i] = (struct trec_dedup_slot){ hash, off, len, ++d->count };
	return d->count - 1;
}

void trec_dedup_reset(struct trec_dedup *d)
{
	if (d->count)
		memset(d->slots, 0, (size_t)d->cap * sizeof(*d->slots));
	d->count = 0;
}

void trec_dedup_free(struct trec_dedup *d)
{
	free(d->slots);
	memset(d, 0, sizeof(*d));
}
