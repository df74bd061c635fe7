/* Fork storm for the reliability tests: starts COUNT short-lived children,
 * up to 16 at a time; each execs /bin/true (mode "exec") or burns a little
 * CPU and exits (mode "spin"), so a profiler sees thousands of pids come
 * and go while the parent keeps sampling-worthy work on the CPU.
 * usage: stress_forks COUNT [exec|spin] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void child_spin(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i ^ (sink >> 1);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000;
	int use_exec = !(argc > 2 && strcmp(argv[2], "spin") == 0);
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
				child_spin();
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
