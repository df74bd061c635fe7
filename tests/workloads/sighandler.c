/* Workload that spends its time in a signal handler: a SIGPROF interval
 * timer interrupts a spinning loop, and the handler spins too, so stacks
 * go handler -> rt_sigreturn trampoline (signal frame) -> interrupted code.
 * usage: sighandler [seconds]   (default 1) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t handled;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long handler_spin(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static void on_signal(int sig)
{
	(void)sig;
	sink += handler_spin(300000);
	handled++;
}

__attribute__((noinline)) static unsigned long interrupted_loop(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005UL + (i ^ sink);
	return s;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPROF, &sa, NULL) != 0) {
		perror("sigaction");
		return 1;
	}
	/* 2 ms of CPU time between signals: about half the time in the handler. */
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	if (setitimer(ITIMER_PROF, &it, NULL) != 0) {
		perror("setitimer");
		return 1;
	}
	while (now() < end)
		sink += interrupted_loop(1000000);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	printf("%lu %d\n", (unsigned long)(sink & 1), handled > 0);
	return 0;
}
