// SPDX-License-Identifier: MIT
/* The per-pid set of code objects handled; see interp_seen.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/hash_seed.h"
#include "record/interp/interp_seen.h"

struct trec_interp_seen_pair {
	uint64_t addr, key; /* addr 0: empty slot */
};

static struct trec_interp_seen_pair *slot(struct trec_interp_seen_pair *slots, size_t cap,
					  uint64_t addr, uint64_t key)
{
	/* seeded (hash_seed.h): addresses the process chooses cannot collide */
	size_t i = (size_t)(trec_hash_mix((addr >> 3) ^ key * 0x9e3779b97f4a7c15ull) & (cap - 1));

	while (slots[i].addr && (slots[i].addr != addr || slots[i].key != key))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct trec_interp_seen *s)
{
	size_t cap = s->cap ? 2 * s->cap : 256;
	struct trec_interp_seen_pair *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].addr)
			*slot(slots, cap, s->slots[i].addr, s->slots[i].key) = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int trec_interp_seen_note(struct trec_interp_seen *s, uint64_t addr, uint64_t key)
{
	struct trec_interp_seen_pair *p;

	if (!addr)
		return 1;
	if (2 * (s->used + 1) > s->cap && grow(s))
		return -ENOMEM;
	p = slot(s->slots, s->cap, addr, key);
	if (p->addr)
		return 1;
	p->addr = addr;
	p->key = key;
	s->used++;
	return 0;
}

void trec_interp_seen_clear(struct trec_interp_seen *s)
{
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
