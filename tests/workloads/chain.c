/* A stack of 250 distinct functions with frames of different sizes, ending
 * in a spin: the native unwinder's cost on a stack that is not a recursion
 * (every frame a different return address and CFA rule; deep.c's frames
 * are all alike, which suits the unwinder's per-trace memos best).
 * usage: chain [seconds]   (default 1)
 *        chain -n UNITS    a fixed amount of work (UNITS x 100k steps) at
 *                          the bottom, for make bench; prints its
 *                          elapsed_ns and cpu_ns to stderr
 *        chain -g SECS     spins SECS at the bottom, timing the interrupts
 *                          (interrupt_gaps.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interrupt_gaps.h"

#define CHAIN_LEN 250

static volatile unsigned long sink;
static long units; /* -n: fixed work instead of a time */
static double end_time;
static double gap_secs; /* -g: the interrupts' gaps instead */

static double clock_secs(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin(void)
{
	unsigned long s = 0;

	if (gap_secs > 0) {
		gaps_spin(gap_secs);
		return 1;
	}
	if (units) {
		for (long u = 0; u < units; u++)
			for (int i = 0; i < 100000; i++)
				s += i * i ^ (s >> 3);
		return s;
	}
	while (clock_secs(CLOCK_MONOTONIC) < end_time)
		for (int i = 0; i < 100000; i++)
			s += i * i ^ (s >> 3);
	return s;
}

typedef unsigned long (*link_fn)(int);
static link_fn const chain[CHAIN_LEN + 1];

/* Link K of the chain: a local array of 8 to 392 bytes (its own frame size
 * and CFA offset), a call to the next link, and work after the call so it
 * is not a tail call. */
#define LINK(id)                                                              \
	__attribute__((noinline)) static unsigned long link_##id(int i)       \
	{                                                                     \
		enum { K = __COUNTER__, PAD = 8 + (K * 37) % 49 * 8 };        \
		volatile unsigned long pad[PAD / 8];                          \
		unsigned long r;                                              \
                                                                              \
		pad[0] = (unsigned long)i;                                    \
		pad[PAD / 8 - 1] = K;                                         \
		r = chain[i + 1](i + 1);                                      \
		return r + pad[0] + pad[PAD / 8 - 1];                         \
	}
#define LINK10(t) LINK(t##0) LINK(t##1) LINK(t##2) LINK(t##3) LINK(t##4) \
	LINK(t##5) LINK(t##6) LINK(t##7) LINK(t##8) LINK(t##9)
#define NAME10(t) link_##t##0, link_##t##1, link_##t##2, link_##t##3, link_##t##4, \
	link_##t##5, link_##t##6, link_##t##7, link_##t##8, link_##t##9,

LINK10(x0) LINK10(x1) LINK10(x2) LINK10(x3) LINK10(x4)
LINK10(x5) LINK10(x6) LINK10(x7) LINK10(x8) LINK10(x9)
LINK10(x10) LINK10(x11) LINK10(x12) LINK10(x13) LINK10(x14)
LINK10(x15) LINK10(x16) LINK10(x17) LINK10(x18) LINK10(x19)
LINK10(x20) LINK10(x21) LINK10(x22) LINK10(x23) LINK10(x24)

/* The last link's successor ends the chain in the spin. */
__attribute__((noinline)) static unsigned long chain_end(int i)
{
	(void)i;
	return spin();
}

static link_fn const chain[CHAIN_LEN + 1] = {
	NAME10(x0) NAME10(x1) NAME10(x2) NAME10(x3) NAME10(x4)
	NAME10(x5) NAME10(x6) NAME10(x7) NAME10(x8) NAME10(x9)
	NAME10(x10) NAME10(x11) NAME10(x12) NAME10(x13) NAME10(x14)
	NAME10(x15) NAME10(x16) NAME10(x17) NAME10(x18) NAME10(x19)
	NAME10(x20) NAME10(x21) NAME10(x22) NAME10(x23) NAME10(x24)
	chain_end,
};

int main(int argc, char **argv)
{
	double t0 = clock_secs(CLOCK_MONOTONIC), c0 = clock_secs(CLOCK_PROCESS_CPUTIME_ID);

	if (argc > 2 && strcmp(argv[1], "-n") == 0)
		units = atol(argv[2]);
	else if (argc > 2 && strcmp(argv[1], "-g") == 0)
		gap_secs = atof(argv[2]);
	else
		end_time = t0 + (argc > 1 ? atof(argv[1]) : 1.0);
	sink += chain[0](0);
	if (units)
		fprintf(stderr, "elapsed_ns=%.0f cpu_ns=%.0f\n",
			(clock_secs(CLOCK_MONOTONIC) - t0) * 1e9,
			(clock_secs(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e9);
	if (gap_secs > 0)
		gaps_report();
	printf("%lu\n", sink & 1);
	return 0;
}
