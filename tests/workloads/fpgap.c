/* Frame pointers in a CFI gap: fpgap-fpnocfi.c has no CFI but keeps frame
 * pointers (as V8's embedded builtins in node do), and sits in the middle
 * of the stack: main -> cfi_outer -> fp_middle -> fp_inner -> cfi_leaf.
 * Its functions start with push %rbp; mov %rsp,%rbp, so trecord walks
 * them by frame pointer (record/unwind/ehframe_gaps.c) where partcfi's
 * must stop. usage: fpgap [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long fp_middle(unsigned long n);
volatile unsigned long fpgap_sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Called back from the frame-pointer code. */
__attribute__((noinline)) unsigned long cfi_leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long cfi_outer(void)
{
	unsigned long r = fp_middle(200000);
	fpgap_sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	while (now() < end)
		fpgap_sink += cfi_outer();
	printf("%lu\n", (unsigned long)(fpgap_sink & 1));
	return 0;
}
