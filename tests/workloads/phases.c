/* A slow phase at a known moment, for the flight recorder's test:
 *   phases BEFORE SLOW AFTER [-k DELAY]
 * spins in steady_work() for BEFORE seconds, in stall_phase() for SLOW
 * seconds, then in steady_work() for AFTER seconds. With -k, DELAY seconds
 * after the slow phase it sends SIGUSR2 to its parent (trecord: "write the
 * window now"), so the test needs no sleep racing the workload. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_until(double end)
{
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * i;
}

__attribute__((noinline)) static void steady_work(double secs)
{
	spin_until(now() + secs);
	sink++;
}

/* Not the same code as steady_work: the linker would fold the two. */
__attribute__((noinline)) static void stall_phase(double secs)
{
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink ^= (unsigned long)i << 3;
}

int main(int argc, char **argv)
{
	double before = argc > 1 ? atof(argv[1]) : 1, slow = argc > 2 ? atof(argv[2]) : 1;
	double after = argc > 3 ? atof(argv[3]) : 1, delay = -1;

	if (argc > 5 && !strcmp(argv[4], "-k"))
		delay = atof(argv[5]);
	steady_work(before);
	stall_phase(slow);
	if (delay >= 0 && delay < after) {
		steady_work(delay);
		kill(getppid(), SIGUSR2);
		after -= delay;
	}
	steady_work(after);
	return 0;
}
