/* SPDX-License-Identifier: MIT */
/*
 * What all JIT files read in one second may hold together. Each perf map
 * or jitdump is bounded on its own (TREC_JIT_LIMITS_DEFAULT: 1 GiB looked
 * at), but processes exiting by the hundred, each rereading a big map
 * (hard links of one), would not be: past the second's budget a file is
 * looked at up to JIT_FILE_MIN_BYTES, marked truncated (the warning
 * "over trecord's limits").
 */
#ifndef TREC_JIT_BUDGET_H
#define TREC_JIT_BUDGET_H

#include <pthread.h>
#include <stdint.h>

#define TREC_JIT_BYTES_PER_SEC (1ull << 30)
#define TREC_JIT_FILE_MIN_BYTES (16ull << 20)

struct trec_jit_budget {
	pthread_mutex_t lock; /* the sync and main threads both read files */
	uint64_t window_ns, used;
};

void trec_jit_budget_init(struct trec_jit_budget *b);
/* The bytes a file read at now_ns may look at: what the second has left,
 * at least TREC_JIT_FILE_MIN_BYTES, at most max. */
uint64_t trec_jit_budget_take(struct trec_jit_budget *b, uint64_t now_ns, uint64_t max);
/* Counts bytes a read looked at against its second. */
void trec_jit_budget_used(struct trec_jit_budget *b, uint64_t bytes);

#endif /* TREC_JIT_BUDGET_H */
