// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "record/inherit.h"
#include "record/stop_signals.h"

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* nohup: the hangup is to leave the recording be, as under perf record */
static bool stops(int sig)
{
	return sig != SIGHUP || !trec_inherit_ignored(SIGHUP);
}

/* Written by the handler only before the signals are blocked (main thread,
 * before any other thread exists), by the main thread afterwards. */
static volatile sig_atomic_t first_sig, num_sigs;
/* SIGUSR2 (flight recorder): taken like the stop signals once enabled. */
static volatile sig_atomic_t switch_enabled, num_switches;

static void note(int sig)
{
	if (!first_sig)
		first_sig = sig;
	num_sigs++;
}

static void on_stop_signal(int sig)
{
	note(sig);
}

static void wait_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		if (stops(stop_sigs[i])) /* (blocked, an ignored one would pend) */
			sigaddset(set, stop_sigs[i]);
	sigaddset(set, SIGCHLD);
	if (switch_enabled)
		sigaddset(set, SIGUSR2);
}

static void on_switch_signal(int sig)
{
	(void)sig;
	num_switches++;
}

int trec_switch_signal_enable(void)
{
	struct sigaction sa = { .sa_handler = on_switch_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL))
		return -errno;
	switch_enabled = 1;
	return 0;
}

unsigned trec_switch_requests(void)
{
	return (unsigned)num_switches;
}

int trec_stop_signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		if (stops(stop_sigs[i]) && sigaction(stop_sigs[i], &sa, NULL))
			return -errno;
	sa.sa_handler = SIG_DFL;
	return sigaction(SIGCHLD, &sa, NULL) ? -errno : 0;
}

void trec_stop_signals_block(sigset_t *orig)
{
	sigset_t set;

	wait_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, orig);
}

unsigned trec_stop_signals_wait(unsigned timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	sigset_t set;
	int sig;

	wait_set(&set);
	/* Everything pending, waiting (at most once) only if nothing is. */
	while ((sig = sigtimedwait(&set, NULL, &ts)) > 0 || (sig < 0 && errno == EINTR)) {
		if (sig == SIGUSR2)
			num_switches++;
		else if (sig > 0 && sig != SIGCHLD)
			note(sig);
		ts = (struct timespec){ 0, 0 };
	}
	return (unsigned)num_sigs;
}

void trec_stop_signals_join(pthread_t t)
{
	/* 20 ms: a second signal is seen within that; the joins take up to
	 * seconds only when there is something to skip */
	while (pthread_tryjoin_np(t, NULL) == EBUSY)
		trec_stop_signals_wait(20);
}

unsigned trec_stop_signals_count(void)
{
	return (unsigned)num_sigs;
}

int trec_stop_signal_first(void)
{
	return first_sig;
}

static bool dumps_core(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return true;
	}
	return false;
}

/* The ASan build's leak check, which a death by signal would skip. */
extern void __lsan_do_leak_check(void) __attribute__((weak));

_Noreturn void trec_die_by_signal(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;

	fflush(NULL);
	if (__lsan_do_leak_check)
		__lsan_do_leak_check();
	if (sig <= 0 || sig >= NSIG || dumps_core(sig))
		_exit(sig > 0 && sig < 128 ? 128 + sig : 1);
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);	/* pending: blocked */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	_exit(128 + sig); /* not reached */
}
