// SPDX-License-Identifier: MIT
/* One pass's successful map lookups (see lookup_memo.h). */
#include <stdlib.h>
#include <string.h>
#include "record/unwind/deferred/lookup_memo.h"

struct trec_lookup_memo *trec_lookup_memo_new(void)
{
	struct trec_lookup_memo *m = calloc(1, sizeof(*m));

	if (m)
		m->pass = 1;
	return m;
}

void trec_lookup_memo_free(struct trec_lookup_memo *m)
{
	free(m);
}

void trec_lookup_memo_new_pass(struct trec_lookup_memo *m)
{
	if (!m)
		return;
	if (++m->pass == 0) { /* wrapped: old stamps could match again */
		memset(m->slots, 0, sizeof(m->slots));
		m->pass = 1;
	}
}

/* The key zero-padded to the slot's width, and its slot. */
static struct trec_lookup_memo_slot *slot_of(struct trec_lookup_memo *m, int fd, const void *key,
					     size_t klen, uint8_t padded[TREC_LOOKUP_MEMO_KEY])
{
	uint64_t w[TREC_LOOKUP_MEMO_KEY / 8], h = (uint64_t)(uint32_t)fd * 0x9e3779b97f4a7c15ULL;

	memset(padded, 0, TREC_LOOKUP_MEMO_KEY);
	memcpy(padded, key, klen);
	memcpy(w, padded, sizeof(w));
	for (size_t i = 0; i < TREC_LOOKUP_MEMO_KEY / 8; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return &m->slots[h % TREC_LOOKUP_MEMO_SLOTS];
}

bool trec_lookup_memo_get(struct trec_lookup_memo *m, int fd, const void *key, size_t klen,
			  void *value, size_t vlen)
{
	uint8_t padded[TREC_LOOKUP_MEMO_KEY];
	struct trec_lookup_memo_slot *s;

	if (!m || klen > TREC_LOOKUP_MEMO_KEY || vlen > TREC_LOOKUP_MEMO_VALUE)
		return false;
	s = slot_of(m, fd, key, klen, padded);
	if (s->pass != m->pass || s->fd != fd || memcmp(s->key, padded, sizeof(padded))) {
		m->misses++;
		return false;
	}
	m->hits++;
	memcpy(value, s->value, vlen);
	return true;
}

void trec_lookup_memo_put(struct trec_lookup_memo *m, int fd, const void *key, size_t klen,
			  const void *value, size_t vlen)
{
	uint8_t padded[TREC_LOOKUP_MEMO_KEY];
	struct trec_lookup_memo_slot *s;

	if (!m || klen > TREC_LOOKUP_MEMO_KEY || vlen > TREC_LOOKUP_MEMO_VALUE)
		return;
	s = slot_of(m, fd, key, klen, padded);
	s->pass = m->pass;
	s->fd = fd;
	memcpy(s->key, padded, sizeof(padded));
	memcpy(s->value, value, vlen);
}
