/* SPDX-License-Identifier: MIT */
/* The recording's clock: CLOCK_MONOTONIC, the clock of BPF's ktime. */
#ifndef TREC_CLOCK_H
#define TREC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t trec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* TREC_CLOCK_H */
