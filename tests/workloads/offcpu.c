/* Off-CPU workload (issue 13), built without frame pointers: the main
 * thread blocks in four known functions and measures its own blocked time
 * in each, as wall time minus its CPU time over the blocking call.
 *   block_in_nanosleep  nanosleep(20 ms)
 *   block_in_pipe_read  read() of a pipe a server thread answers 15 ms later
 *   block_in_mutex      a mutex a holder thread keeps for 15 ms
 *   block_in_fsync      fsync() of 2 MiB just written (in $TMPDIR or /var/tmp)
 * It prints "FUNCTION MICROSECONDS RUNQ_MICROSECONDS" per function at the
 * end (the second: of the first, the time spent runnable on a run queue,
 * after wake-ups and preemptions alike), and on stderr
 * "main_wall_us N": main's own wall time, for the wall view.
 * usage: offcpu [rounds]         (default 10)
 *        offcpu --loop SECONDS   rounds until SECONDS have passed (for -p)
 *        offcpu --short N [MIN_US]  N waits of 50 us in short_below and N of
 *                                20 ms in short_above (threshold tests); prints
 *                                "short_below_kept K" and "short_above_kept K":
 *                                how many of each it measured blocked for at
 *                                least MIN_US (default 5000), the waits an
 *                                --off-cpu-min of MIN_US keeps (a loaded
 *                                machine stretches some 50 us sleeps past it) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { F_SLEEP, F_PIPE, F_MUTEX, F_FSYNC, F_COUNT };
static const char *const names[F_COUNT] = { "block_in_nanosleep", "block_in_pipe_read",
					    "block_in_mutex", "block_in_fsync" };
static double blocked_us[F_COUNT], runq_wait_us[F_COUNT];

static int req_srv[2], ans_srv[2], req_lock[2], ack_lock[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fsync_fd = -1;
static char fsync_buf[2 << 20];

static double clock_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* This thread's time waiting on a run queue so far (schedstat's second
 * field, ns): runnable but not running, which is not a wait trecord
 * records after a preemption (only voluntary switches are waits). */
static double runq_us(void)
{
	unsigned long long run, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait / 1e3;
}

/* Wall, CPU and run-queue time at the start of a blocking call. */
struct span {
	double wall, cpu, runq;
};

static struct span span_start(void)
{
	double runq = runq_us();

	return (struct span){ clock_us(CLOCK_MONOTONIC), clock_us(CLOCK_THREAD_CPUTIME_ID), runq };
}

/* The time off the CPU since s: wall time less CPU time. */
static double span_blocked_us(struct span s)
{
	double wall = clock_us(CLOCK_MONOTONIC) - s.wall;
	double cpu = clock_us(CLOCK_THREAD_CPUTIME_ID) - s.cpu;

	return wall > cpu ? wall - cpu : 0;
}

static void span_end(struct span s, int f)
{
	blocked_us[f] += span_blocked_us(s);
	runq_wait_us[f] += runq_us() - s.runq;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static void must(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

__attribute__((noinline)) static void block_in_nanosleep(void)
{
	struct span s = span_start();

	sleep_us(20000);
	span_end(s, F_SLEEP);
}

__attribute__((noinline)) static void block_in_pipe_read(void)
{
	char c = 'q';
	struct span s;

	must(write(req_srv[1], &c, 1) == 1, "write request");
	s = span_start();
	must(read(ans_srv[0], &c, 1) == 1, "read answer");
	span_end(s, F_PIPE);
}

/* Until the holder has the mutex: a wait of its own, outside block_in_mutex. */
__attribute__((noinline)) static void await_holder(void)
{
	char c = 'l';

	must(write(req_lock[1], &c, 1) == 1, "write lock request");
	must(read(ack_lock[0], &c, 1) == 1, "read lock ack");
}

__attribute__((noinline)) static void block_in_mutex(void)
{
	struct span s;

	s = span_start();
	pthread_mutex_lock(&lock);
	span_end(s, F_MUTEX);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void block_in_fsync(void)
{
	struct span s;

	for (size_t i = 0; i < sizeof(fsync_buf); i += 4096)
		fsync_buf[i]++;
	must(pwrite(fsync_fd, fsync_buf, sizeof(fsync_buf), 0) == (ssize_t)sizeof(fsync_buf),
	     "pwrite");
	s = span_start();
	must(fsync(fsync_fd) == 0, "fsync");
	span_end(s, F_FSYNC);
}

/* Answers each request 15 ms later. */
static void *pipe_server(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "offcpu-srv");
	while (read(req_srv[0], &c, 1) == 1 && c != 'x') {
		sleep_us(15000);
		must(write(ans_srv[1], &c, 1) == 1, "write answer");
	}
	return NULL;
}

/* Takes the mutex on request, says so, keeps it 15 ms. */
static void *lock_holder(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "offcpu-lock");
	while (read(req_lock[0], &c, 1) == 1 && c != 'x') {
		pthread_mutex_lock(&lock);
		must(write(ack_lock[1], &c, 1) == 1, "write ack");
		sleep_us(15000);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* Not measured: the first waits of a process, before trecord has synced
 * it and loaded its deltas, keep only their leaf frame (README, Off-CPU
 * time, Limits; off-CPU stacks are not deferred). 1 s: the sanitizer build
 * in CI needed more than 200 ms. */
__attribute__((noinline)) static void warm_up(void)
{
	sleep_us(1000000);
}

__attribute__((noinline)) static void short_below(void)
{
	sleep_us(50);
}

__attribute__((noinline)) static void short_above(void)
{
	sleep_us(20000);
}

static void open_fsync_file(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	char path[4096];

	snprintf(path, sizeof(path), "%s/offcpu.XXXXXX", dir);
	fsync_fd = mkstemp(path);
	must(fsync_fd >= 0, path);
	unlink(path);
}

int main(int argc, char **argv)
{
	pthread_t srv, holder;
	double until = 0, start = clock_us(CLOCK_MONOTONIC);
	long rounds = 10;
	char x = 'x';

	if (argc > 2 && !strcmp(argv[1], "--short")) {
		long n = atol(argv[2]), below = 0, above = 0;
		double min_us = argc > 3 ? atof(argv[3]) : 5000;

		for (long i = 0; i < n; i++) {
			struct span s = span_start();

			short_below();
			below += span_blocked_us(s) >= min_us;
			s = span_start();
			short_above();
			above += span_blocked_us(s) >= min_us;
		}
		printf("short_below_kept %ld\nshort_above_kept %ld\n", below, above);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--loop"))
		until = clock_us(CLOCK_MONOTONIC) + atof(argv[2]) * 1e6;
	else if (argc > 1)
		rounds = atol(argv[1]);
	must(!pipe(req_srv) && !pipe(ans_srv) && !pipe(req_lock) && !pipe(ack_lock), "pipe");
	open_fsync_file();
	warm_up();
	must(!pthread_create(&srv, NULL, pipe_server, NULL), "pthread_create");
	must(!pthread_create(&holder, NULL, lock_holder, NULL), "pthread_create");
	for (long i = 0; until ? clock_us(CLOCK_MONOTONIC) < until : i < rounds; i++) {
		block_in_nanosleep();
		block_in_pipe_read();
		await_holder();
		block_in_mutex();
		block_in_fsync();
	}
	must(write(req_srv[1], &x, 1) == 1 && write(req_lock[1], &x, 1) == 1, "write quit");
	pthread_join(srv, NULL);
	pthread_join(holder, NULL);
	for (int f = 0; f < F_COUNT; f++)
		printf("%s %.0f %.0f\n", names[f], blocked_us[f], runq_wait_us[f]);
	fprintf(stderr, "main_wall_us %.0f\n", clock_us(CLOCK_MONOTONIC) - start);
	return 0;
}
