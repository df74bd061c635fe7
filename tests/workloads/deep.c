/* A recursion deeper than a trace holds (TREC_MAX_FRAMES = 256), ending in
 * a spin: the unwinder must stop at the frame limit with an error frame,
 * not run out of tail calls or drop the sample.
 * usage: deep [seconds] [depth]   (default 1 s, 400 frames)
 *        deep -n UNITS [depth]     a fixed amount of work (UNITS x 100k
 *                                  steps) at the bottom, for make bench;
 *                                  prints its elapsed_ns and cpu_ns
 *        deep -g SECS [depth]      spins SECS at the bottom, timing the
 *                                  interrupts (interrupt_gaps.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interrupt_gaps.h"

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long units; /* -n: fixed work instead of a time */
static double gap_secs; /* -g: the interrupts' gaps instead */

/* Its own function: inlined, it changes dive's code (rbp as a register). */
__attribute__((noinline)) static unsigned long fixed_work(void)
{
	unsigned long s = 0;

	for (long u = 0; u < units; u++)
		for (int i = 0; i < 100000; i++)
			s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long dive(int depth, double end)
{
	if (depth == 0) {
		unsigned long s = 0;
		if (units)
			return fixed_work();
		if (gap_secs > 0) {
			gaps_spin(gap_secs);
			return 1;
		}
		while (now() < end)
			for (int i = 0; i < 100000; i++)
				s += i * i ^ (s >> 3);
		return s;
	}
	unsigned long r = dive(depth - 1, end);
	sink += r;
	return r + (unsigned long)depth;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int depth = argc > 2 ? atoi(argv[2]) : 400;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		double t0 = now(), c0 = cpu_now();

		units = atol(argv[2]);
		depth = argc > 3 ? atoi(argv[3]) : 400;
		printf("%lu\n", dive(depth, 0) & 1);
		fprintf(stderr, "elapsed_ns=%.0f cpu_ns=%.0f\n", (now() - t0) * 1e9,
			(cpu_now() - c0) * 1e9);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "-g") == 0) {
		gap_secs = atof(argv[2]);
		depth = argc > 3 ? atoi(argv[3]) : 400;
		printf("%lu\n", dive(depth, 0) & 1);
		gaps_report();
		return 0;
	}
	printf("%lu\n", dive(depth, now() + secs) & 1);
	return 0;
}
