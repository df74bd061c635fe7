/* A recursion deeper than a trace holds (TREC_MAX_FRAMES = 256), ending in
 * a spin: the unwinder must stop at the frame limit with an error frame,
 * not run out of tail calls or drop the sample.
 * usage: deep [seconds] [depth]   (default 1 s, 400 frames) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long dive(int depth, double end)
{
	if (depth == 0) {
		unsigned long s = 0;
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
	printf("%lu\n", dive(depth, now() + secs) & 1);
	return 0;
}
