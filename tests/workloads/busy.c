/* CPU-bound workload without frame pointers: a qsort callback called from
 * libc, and a deep recursion (150 frames) that ends in a spin.
 * usage: busy [seconds]   (default 1)
 *        busy -n UNITS    a fixed amount of work, its elapsed_ns on stderr
 *                         (benchmarks: a profiler's slowdown shows in it) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	for (int i = 0; i < 20; i++)
		sink += (unsigned long)(x ^ i);
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_work(void)
{
	static int v[4096];
	for (int i = 0; i < 4096; i++)
		v[i] = rand();
	qsort(v, 4096, sizeof(v[0]), cmp_ints);
}

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long recurse(int depth)
{
	if (depth == 0)
		return spin(200000);
	unsigned long r = recurse(depth - 1);
	sink += r;
	return r + (unsigned long)depth;
}

/* Inlined so the stacks stay main -> sort_work / recurse as before. */
__attribute__((always_inline)) static inline void work_unit(void)
{
	sort_work();
	sink += recurse(150);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		long units = atol(argv[2]);
		double start = now();
		for (long u = 0; u < units; u++)
			work_unit();
		fprintf(stderr, "elapsed_ns=%.0f\n", (now() - start) * 1e9);
	} else {
		double secs = argc > 1 ? atof(argv[1]) : 1.0;
		double end = now() + secs;
		while (now() < end)
			work_unit();
	}
	printf("%lu\n", (unsigned long)(sink & 1));
	return 0;
}
