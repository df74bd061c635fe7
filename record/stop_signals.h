/* SPDX-License-Identifier: MIT */
/*
 * The signals that stop a recording: SIGINT, SIGTERM, SIGHUP.
 *
 * They get handlers first thing in main(), whatever disposition trecord
 * inherited (a non-interactive shell starts background jobs with SIGINT
 * ignored), then are blocked before any thread starts and taken by the
 * main thread with sigtimedwait. The first one stops the recording; a
 * second one asks the shutdown to hurry (skip the optional work).
 */
#ifndef TREC_STOP_SIGNALS_H
#define TREC_STOP_SIGNALS_H

#include <signal.h>
#include <pthread.h>
#include <stdbool.h>

/* Installs the handlers and gives SIGCHLD its default action (an inherited
 * SIG_IGN would make the kernel reap the command, losing its status).
 * 0 or negative errno. */
int trec_stop_signals_init(void);
/* Blocks the stop signals and SIGCHLD in the calling thread (call it before
 * starting any thread, they inherit the mask); *orig gets the previous
 * mask, for the recorded command. */
void trec_stop_signals_block(sigset_t *orig);
/* Takes the stop signals (and SIGCHLD wake-ups) that arrive within
 * timeout_ms, returning early when one does. Returns how many stop
 * signals were received so far. */
unsigned trec_stop_signals_wait(unsigned timeout_ms);
/* How many stop signals were received so far, and the first of them
 * (0 if none). No system call. */
unsigned trec_stop_signals_count(void);
int trec_stop_signal_first(void);
/* Joins thread t (main thread only), taking the stop signals meanwhile,
 * so that a thread which polls trec_stop_hurry() (the writer's wait for
 * deferred samples) sees a second Ctrl-C that arrives while it runs. */
void trec_stop_signals_join(pthread_t t);
/* A second stop signal arrived: the shutdown skips what is optional. */
static inline bool trec_stop_hurry(void)
{
	return trec_stop_signals_count() >= 2;
}
/* As trec_stop_hurry, taking the signals pending first (main thread: a
 * long step of the shutdown, asked between its items). */
static inline bool trec_stop_hurry_now(void)
{
	trec_stop_signals_wait(0);
	return trec_stop_hurry();
}

/* --overwrite, --switch-output: SIGUSR2 asks for a switched file, as in
 * perf. Call before trec_stop_signals_block; then the main thread takes it
 * with the stop signals (a SIGUSR2 ends trec_stop_signals_wait early). */
int trec_switch_signal_enable(void);
/* SIGUSR2s received so far. */
unsigned trec_switch_requests(void);

/* Ends the process the way perf record does after a stop signal: killed by
 * sig, so a calling shell sees why (and a script's loop stops on ^C).
 * Core-dumping signals (of a recorded command) become exit 128 + sig,
 * so trecord itself never dumps core. */
_Noreturn void trec_die_by_signal(int sig);

#endif /* TREC_STOP_SIGNALS_H */
