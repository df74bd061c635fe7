/* The stack main -> cfi_outer -> GAP_MIDDLE -> GAP_INNER -> cfi_leaf, where
 * the two GAP_ functions live in a file built without CFI (X-nocfi.c or
 * X-fpnocfi.c, see Makefile). partcfi and fpgap define GAP_MIDDLE,
 * GAP_INNER and GAP_SINK before including this header; this part has CFI.
 * usage: X [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long GAP_MIDDLE(unsigned long n);
volatile unsigned long GAP_SINK;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Called back from the code without CFI. */
__attribute__((noinline)) unsigned long cfi_leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long cfi_outer(void)
{
	unsigned long r = GAP_MIDDLE(200000);
	GAP_SINK += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	while (now() < end)
		GAP_SINK += cfi_outer();
	printf("%lu\n", (unsigned long)(GAP_SINK & 1));
	return 0;
}
