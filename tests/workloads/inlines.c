/* Inlined-call chains three deep, for symbol-archive and report tests:
 * hot() is inlined into mid(), mid() into outer(), outer() is a real
 * function called from main. usage: inlines [seconds]  (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long hot(unsigned long x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long mid(unsigned long x)
{
	unsigned long a = hot(x);
	sink += a;
	return hot(a ^ 0x55);
}

__attribute__((noinline)) static unsigned long outer(unsigned long x)
{
	unsigned long s = 0;
	for (int i = 0; i < 1000; i++)
		s += mid(x + (unsigned long)i);
	return s;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	unsigned long s = 0;
	while (now() < end)
		s += outer(s);
	printf("%lu\n", s & 1);
	return 0;
}
