/* Multi-threaded workload without frame pointers: three pthread workers,
 * each spinning in its own function, while main waits in pthread_join.
 * usage: threads [seconds]   (default 1) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double end_time;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin_alpha(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long spin_beta(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005UL + i;
	return s;
}

__attribute__((noinline)) static unsigned long spin_gamma(unsigned long n)
{
	unsigned long s = 7;
	for (unsigned long i = 1; i < n; i++)
		s ^= s / i + (s << 1);
	return s;
}

static void *worker_alpha(void *arg)
{
	(void)arg;
	while (now() < end_time)
		sink += spin_alpha(100000);
	return NULL;
}

static void *worker_beta(void *arg)
{
	(void)arg;
	while (now() < end_time)
		sink += spin_beta(100000);
	return NULL;
}

static void *worker_gamma(void *arg)
{
	(void)arg;
	while (now() < end_time)
		sink += spin_gamma(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { worker_alpha, worker_beta, worker_gamma };
	pthread_t t[3];
	end_time = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", (unsigned long)(sink & 1));
	return 0;
}
