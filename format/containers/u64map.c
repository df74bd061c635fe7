// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include "format/containers/hash_seed.h"
#include "format/containers/u64map.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	return trec_hash_mix(key) & (cap - 1); /* hash_seed.h: no chosen collisions */
}

void *trec_u64map_get(const struct trec_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int grow(struct trec_u64map *m)
{
	size_t ncap = m->cap ? 2 * m->cap : 64;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	void **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->vals[i])
			continue;
		for (j = slot_of(m->keys[i], ncap); nv[j]; j = (j + 1) & (ncap - 1))
			;
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

void *trec_u64map_put(struct trec_u64map *m, uint64_t key, void *val, int *err)
{
	size_t i;

	if (err)
		*err = 0;
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m)) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			void *old = m->vals[i];

			m->vals[i] = val;
			return old;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return NULL;
}

void *trec_u64map_put_new(struct trec_u64map *m, uint64_t key, void *val)
{
	int err = 0;

	if (val)
		trec_u64map_put(m, key, val, &err);
	if (err) {
		free(val);
		return NULL;
	}
	return val;
}

void *trec_u64map_del(struct trec_u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;
	void *old;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap); m->keys[i] != key || !m->vals[i]; i = (i + 1) & mask)
		if (!m->vals[i])
			return NULL;
	old = m->vals[i];
	/* Backward-shift deletion keeps probe chains intact without
	 * tombstones. */
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		size_t home = slot_of(m->keys[j], m->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->vals[i] = NULL;
	m->n--;
	return old;
}

int trec_u64map_next(const struct trec_u64map *m, size_t *iter, uint64_t *key, void **val)
{
	for (; *iter < m->cap; (*iter)++) {
		if (m->vals[*iter]) {
			*key = m->keys[*iter];
			*val = m->vals[*iter];
			(*iter)++;
			return 1;
		}
	}
	return 0;
}

void trec_u64map_free(struct trec_u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
