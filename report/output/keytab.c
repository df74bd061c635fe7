// SPDX-License-Identifier: MIT
/* Interning of up-to-three-u64 keys (see keytab.h). */
#include "report/output/keytab.h"

#include <stdlib.h>

struct kt_ctx {
	const struct rp_keytab *kt;
	uint64_t a, b, c;
};

static bool kt_eq(const void *ctx, uint32_t i)
{
	const struct kt_ctx *x = ctx;
	const uint64_t *k = x->kt->k + 3 * (size_t)i;
	return k[0] == x->a && k[1] == x->b && k[2] == x->c;
}

static uint64_t kt_hash(uint64_t a, uint64_t b, uint64_t c)
{
	return rp_hash_u64(a ^ rp_hash_u64(b ^ rp_hash_u64(c)));
}

uint32_t rp_keytab_find(const struct rp_keytab *kt, uint64_t a, uint64_t b, uint64_t c)
{
	struct kt_ctx x = { kt, a, b, c };
	return trec_itab_find(&kt->t, kt_hash(a, b, c), kt_eq, &x);
}

uint32_t rp_keytab_get(struct rp_keytab *kt, uint64_t a, uint64_t b, uint64_t c, bool *added)
{
	uint32_t i = rp_keytab_find(kt, a, b, c);
	if (added)
		*added = i == TREC_ITAB_NONE;
	if (i != TREC_ITAB_NONE)
		return i;
	if (kt->n >= UINT32_MAX - 1)
		rp_out_of_memory(kt->n);
	RP_GROW(kt->k, kt->cap, 3 * (kt->n + 1));
	kt->k[3 * kt->n] = a;
	kt->k[3 * kt->n + 1] = b;
	kt->k[3 * kt->n + 2] = c;
	rp_itab_insert(&kt->t, kt_hash(a, b, c), (uint32_t)kt->n);
	return (uint32_t)kt->n++;
}

void rp_keytab_free(struct rp_keytab *kt)
{
	trec_itab_free(&kt->t);
	free(kt->k);
}
