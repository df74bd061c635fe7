/* A workload with named threads doing different work at different times,
 * without frame pointers, for timelines: the main thread ("pipeline")
 * parses input, then two "hasher-N" threads hash blocks while a
 * "compressor" thread squeezes them, then the main thread summarizes.
 * Each phase takes a share of the run; workers also sleep a little so the
 * timeline has gaps.
 * usage: pipeline [seconds]   (default 1) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static double t0, total_secs;

__attribute__((noinline)) static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static unsigned long parse_record(unsigned long seed)
{
	unsigned long s = seed;
	for (int i = 0; i < 20000; i++)
		s = s * 31 + (s >> 7) + (unsigned long)i;
	return s;
}

__attribute__((noinline)) static unsigned long parse_input(double until)
{
	unsigned long s = 0;
	while (now() < until)
		s += parse_record(s);
	return s;
}

__attribute__((noinline)) static unsigned long hash_block(unsigned long seed)
{
	unsigned long h = 1469598103934665603UL ^ seed;
	for (int i = 0; i < 40000; i++)
		h = (h ^ (unsigned long)i) * 1099511628211UL;
	return h;
}

__attribute__((noinline)) static unsigned long compress_block(unsigned long seed)
{
	unsigned char buf[4096];
	unsigned long s = seed;
	for (int r = 0; r < 8; r++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)(s >> (i & 15));
		for (size_t i = 1; i < sizeof(buf); i++)
			s += buf[i] == buf[i - 1] ? 1 : buf[i];
	}
	return s;
}

__attribute__((noinline)) static unsigned long summarize(double until)
{
	unsigned long s = 0;
	while (now() < until)
		for (int i = 0; i < 10000; i++)
			s += (unsigned long)i * i % 7;
	return s;
}

struct worker {
	const char *name;
	unsigned long (*fn)(unsigned long);
	double until;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	pthread_setname_np(pthread_self(), w->name);
	unsigned long s = 0;
	int n = 0;
	while (now() < w->until) {
		s += w->fn(s);
		if (++n % 800 == 0)
			nap(20);
	}
	sink += s;
	return NULL;
}

int main(int argc, char **argv)
{
	total_secs = argc > 1 ? atof(argv[1]) : 1.0;
	t0 = now();
	pthread_setname_np(pthread_self(), "pipeline");
	sink += parse_input(t0 + 0.25 * total_secs);

	struct worker w[] = {
		{ "hasher-1", hash_block, t0 + 0.75 * total_secs },
		{ "hasher-2", hash_block, t0 + 0.65 * total_secs },
		{ "compressor", compress_block, t0 + 0.85 * total_secs },
	};
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, run_worker, &w[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	sink += summarize(t0 + total_secs);
	return (int)(sink & 0); /* nothing printed: quiet under trecord */
}
