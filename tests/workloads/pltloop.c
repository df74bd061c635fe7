/* A hot loop through libc's rand() and strtol(), called through the PLT:
 * a sample in a stub must read rand@plt / strtol@plt, as perf and objdump
 * name them, not the symbol before the PLT (_init).
 * usage: pltloop [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long plt_work(const char *digits, int n)
{
	long acc = 0;
	for (int i = 0; i < n; i++) {
		acc += rand();
		acc += strtol(digits, NULL, 10);
	}
	return acc;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	long acc = 0;
	while (now() < end)
		acc += plt_work("12345", 10000);
	printf("%ld\n", acc & 1);
	return 0;
}
