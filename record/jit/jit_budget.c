// SPDX-License-Identifier: MIT
/* See jit_budget.h. */
#include "record/jit/jit_budget.h"

void trec_jit_budget_init(struct trec_jit_budget *b)
{
	pthread_mutex_init(&b->lock, NULL);
	b->window_ns = 0;
	b->used = 0;
}

uint64_t trec_jit_budget_take(struct trec_jit_budget *b, uint64_t now_ns, uint64_t max)
{
	uint64_t left;

	pthread_mutex_lock(&b->lock);
	if (now_ns - b->window_ns >= 1000000000ull) {
		b->window_ns = now_ns;
		b->used = 0;
	}
	left = b->used < TREC_JIT_BYTES_PER_SEC ? TREC_JIT_BYTES_PER_SEC - b->used : 0;
	pthread_mutex_unlock(&b->lock);
	if (left < TREC_JIT_FILE_MIN_BYTES)
		left = TREC_JIT_FILE_MIN_BYTES;
	return left < max ? left : max;
}

void trec_jit_budget_used(struct trec_jit_budget *b, uint64_t bytes)
{
	pthread_mutex_lock(&b->lock);
	b->used += bytes;
	pthread_mutex_unlock(&b->lock);
}
