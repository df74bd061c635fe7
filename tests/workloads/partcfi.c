/* Workload where some frames have no CFI: partcfi-nocfi.c is compiled
 * without unwind tables (no .eh_frame, no .debug_frame), and sits in the
 * middle of the stack: main -> cfi_outer -> nocfi_middle -> nocfi_inner
 * -> cfi_leaf. An unwinder must stop with an error at nocfi_inner/middle,
 * never invent a caller. usage: partcfi [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long nocfi_middle(unsigned long n);
volatile unsigned long partcfi_sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Called back from the no-CFI code. */
__attribute__((noinline)) unsigned long cfi_leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long cfi_outer(void)
{
	unsigned long r = nocfi_middle(200000);
	partcfi_sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	while (now() < end)
		partcfi_sink += cfi_outer();
	printf("%lu\n", (unsigned long)(partcfi_sink & 1));
	return 0;
}
