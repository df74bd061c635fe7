/* Interrupt gaps, for make bench's per-sample cost (tests/bench/bench_gaps.py):
 * a spin that reads the CPU's counter and keeps every jump over GAP_MIN_NS,
 * time the CPU spent elsewhere: a timer interrupt, and what a profiler's
 * sample does in it. The CPU time a recorder adds per sample, measured
 * per sample, where a workload's total CPU time carries the host's drift.
 *
 * gaps_spin(secs) spins; gaps_report() prints to stderr
 *   gaps=N gap_p25_ns=.. gap_median_ns=.. gap_p75_ns=..
 * Included by deep.c and chain.c (their -g SECS mode). */
#ifndef INTERRUPT_GAPS_H
#define INTERRUPT_GAPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define GAP_MIN_NS 2000
#define GAPS_MAX (1 << 20)

static uint32_t gaps[GAPS_MAX];
static size_t num_gaps;

static inline uint64_t gaps_counter(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static double gaps_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Counter ticks per ns, over 20 ms of the monotonic clock. */
static double gaps_ticks_per_ns(void)
{
	double t0 = gaps_now_ns(), t1;
	uint64_t c0 = gaps_counter(), c1;

	do {
		t1 = gaps_now_ns();
		c1 = gaps_counter();
	} while (t1 - t0 < 2e7);
	return (double)(c1 - c0) / (t1 - t0);
}

/* Its own frame, the stack's leaf while it runs. */
__attribute__((noinline)) static void gaps_spin(double secs)
{
	double per_ns = gaps_ticks_per_ns();
	uint64_t min = (uint64_t)(GAP_MIN_NS * per_ns);
	uint64_t last = gaps_counter(), end = last + (uint64_t)(secs * 1e9 * per_ns);

	for (;;) {
		uint64_t t = gaps_counter();

		if (t - last > min && num_gaps < GAPS_MAX)
			gaps[num_gaps++] = (uint32_t)((t - last) / per_ns);
		last = t;
		if (t > end)
			break;
	}
}

static int gaps_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void gaps_report(void)
{
	size_t n = num_gaps;

	qsort(gaps, n, sizeof(gaps[0]), gaps_cmp);
	fprintf(stderr, "gaps=%zu gap_p25_ns=%u gap_median_ns=%u gap_p75_ns=%u\n", n,
		n ? gaps[n / 4] : 0, n ? gaps[n / 2] : 0, n ? gaps[3 * n / 4] : 0);
}

#endif /* INTERRUPT_GAPS_H */
