/* Fork storm for the reliability tests: starts COUNT short-lived children,
 * up to 16 at a time; each execs /bin/true (mode "exec") or burns a little
 * CPU and exits (mode "spin"), so a profiler sees thousands of pids come
 * and go. Spinning children live long enough (ITERS, default 200000
 * iterations) to be sampled, so the profiler syncs pids that exit while
 * or right after it reads them.
 * usage: stress_forks COUNT [exec|spin [ITERS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void child_spin(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i++)
		sink += i ^ (sink >> 1);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000;
	int use_exec = !(argc > 2 && strcmp(argv[2], "spin") == 0);
	unsigned long iters = argc > 3 ? strtoul(argv[3], NULL, 0) : 200000;
	long started = 0, failed = 0;
	int running = 0, status;

	while (started < count || running > 0) {
		while (started < count && running < 16) {
			pid_t pid = fork();
			if (pid < 0) {
				perror("stress_forks: fork");
				return 1;
			}
			if (pid == 0) {
				if (use_exec) {
					execl("/bin/true", "true", (char *)NULL);
					_exit(127);
				}
				child_spin(iters);
				_exit(0);
			}
			started++;
			running++;
		}
		if (wait(&status) > 0) {
			running--;
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				failed++;
		}
	}
	printf("started=%ld failed=%ld\n", started, failed);
	return failed ? 1 : 0;
}
