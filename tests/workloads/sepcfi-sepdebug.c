/* Workload whose own code has CFI only in its separate debug file: built
 * without unwind tables but with -g (so GCC writes .debug_frame), then
 * split with objcopy --only-keep-debug / --strip-debug /
 * --add-gnu-debuglink into sepcfi and sepcfi.debug (tests/workloads/
 * Makefile). Stack: main -> sep_outer -> sep_middle -> sep_leaf, none
 * with frame pointers. usage: sepcfi [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sep_sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long sep_leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

/* Stack space of their own, so each frame's CFA rule differs. */
__attribute__((noinline)) unsigned long sep_middle(unsigned long n)
{
	volatile unsigned long pad[8] = { n };
	unsigned long r = sep_leaf(n + pad[0] % 2);
	return r + pad[7];
}

__attribute__((noinline)) unsigned long sep_outer(unsigned long n)
{
	volatile unsigned long pad[24] = { n };
	unsigned long r = sep_middle(n + pad[0] % 3);
	return r ^ pad[23];
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	while (now() < end)
		sep_sink += sep_outer(200000);
	printf("%lu\n", sep_sink & 1);
	return 0;
}
