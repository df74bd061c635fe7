/* A short-lived process for the process-tracking tests: burns MS
 * milliseconds of CPU (default 10) in short_leaf, called through
 * short_mid from main, then exits. With "fork N" it first forks N
 * children (no exec) that each do the same, one at a time, so a
 * profiler sees processes that only ever run their parent's image. With
 * "linger L" it sleeps L milliseconds before it exits (a process whose
 * start is busy but which lives until a profiler has read its maps).
 * usage: shortlived [MS [fork N | linger L]] */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void short_leaf(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink += i ^ (sink >> 3);
}

__attribute__((noinline)) static void short_mid(double ms)
{
	short_leaf(ms);
	sink++;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 10;
	long forks = argc > 3 && !strcmp(argv[2], "fork") ? atol(argv[3]) : 0;

	for (long i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			short_mid(ms);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	short_mid(ms);
	if (argc > 3 && !strcmp(argv[2], "linger"))
		usleep((useconds_t)(atof(argv[3]) * 1000));
	return 0;
}
