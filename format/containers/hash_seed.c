// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "format/containers/hash_seed.h"

uint64_t trec_hash_seed_value; /* 0 until the first use; __atomic_* only */

uint64_t trec_hash_seed_init(void)
{
	uint64_t s = 0, expected = 0;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s)) {
		/* (no entropy yet, early boot): at least not fixed */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec << 20 ^
		    (uint64_t)getpid() ^ (uint64_t)(uintptr_t)&ts;
	}
	s |= 1; /* never 0, which means unset */
	/* The first thread to set it wins; every caller gets that value. */
	if (!__atomic_compare_exchange_n(&trec_hash_seed_value, &expected, s, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return expected;
	return s;
}
