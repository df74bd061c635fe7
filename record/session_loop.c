// SPDX-License-Identifier: MIT
/*
 * A recording's loop on the main thread: stop signals, the command's end,
 * --duration, the periodic flush and metrics; then the end of a command
 * that outlived the recording, and trecord's exit status.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include "record/clock.h"
#include "record/cli.h"
#include "record/flight/flight.h"
#include "record/procs/proc_status.h"
#include "record/session_internal.h"
#include "record/stop_signals.h"

/* A SIGKILL loses at most what the last interval gathered: 0.1 s at the
 * start (short runs are killed early too), doubling up to 1 s. */
#define FLUSH_FIRST_NS 100000000ULL
#define FLUSH_INTERVAL_NS 1000000000ULL
#define METRICS_INTERVAL_NS 10000000000ULL
#define CHILD_TERM_GRACE_NS 2000000000ULL
#define LOOP_TICK_MS 100

/* A zombie has exited: its parent may reap it much later, or never. */
static bool any_alive(const struct trec_options *o)
{
	for (size_t i = 0; i < o->num_pids; i++)
		if (trec_proc_status(o->pids[i], NULL) == TREC_PROC_LIVE)
			return true;
	return false;
}

void trec_session_reap_child(struct trec_session *s, int flags)
{
	pid_t r;
	int st;

	if (!s->have_child || s->child_done)
		return;
	do
		r = waitpid(s->wl.pid, &st, flags);
	while (r < 0 && errno == EINTR);
	if (r == s->wl.pid) {
		s->child_done = true;
		s->child_status = st;
	} else if (r < 0 && errno == ECHILD) {
		/* Reaped by someone else: its status is unknown, but it is gone. */
		s->child_done = true;
		s->child_status = -1;
	}
}

/* Samples until something ends the recording; says what (SUMMARY flags). */
enum trec_stop_cause trec_session_loop(struct trec_session *s)
{
	const struct trec_options *o = s->opt;
	uint64_t deadline = o->duration_s > 0 ? s->start_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	uint64_t flush_every = FLUSH_FIRST_NS;
	uint64_t next_flush = s->start_ns + flush_every;
	uint64_t next_metrics = s->start_ns + METRICS_INTERVAL_NS;

	for (;;) {
		uint64_t now;
		unsigned wait_ms = LOOP_TICK_MS;

		/* --duration ends on time, not on the next tick. */
		now = trec_now_ns();
		if (deadline && deadline < now + wait_ms * 1000000ULL)
			wait_ms = deadline > now ? (unsigned)((deadline - now) / 1000000) + 1 : 0;
		if (trec_stop_signals_wait(wait_ms))
			return TREC_STOP_SIGNAL;
		trec_session_reap_child(s, WNOHANG);
		if (s->child_done)
			return TREC_STOP_COMMAND;
		now = trec_now_ns();
		if (deadline && now >= deadline)
			return TREC_STOP_DURATION;
		if (o->num_pids && !any_alive(o))
			return TREC_STOP_PIDS;
		if (trec_output_error(&s->out))
			return TREC_STOP_ERROR;
		if (s->flight && trec_flight_tick(s->flight, now, trec_switch_requests()))
			return TREC_STOP_ERROR;
		if (now >= next_flush) {
			trec_output_flush_tick(&s->out, now);
			flush_every = flush_every * 2 < FLUSH_INTERVAL_NS ? flush_every * 2
									 : FLUSH_INTERVAL_NS;
			next_flush = now + flush_every;
		}
		if (now >= next_metrics) {
			trec_session_write_metrics(s, NULL);
			/* Per-process state comes and goes with the processes and
			 * leaves the heaps fragmented: give the free pages back,
			 * so a long recording's RSS is what it uses. */
			malloc_trim(0);
			next_metrics = now + METRICS_INTERVAL_NS;
		}
	}
}

/* The command outlived the recording (signal to trecord, --duration,
 * write error): end it like perf does, SIGTERM then SIGKILL. */
void trec_session_end_child(struct trec_session *s)
{
	uint64_t until;

	trec_session_reap_child(s, WNOHANG);
	if (!s->have_child || s->child_done)
		return;
	kill(s->wl.pid, SIGTERM);
	s->child_ended = true;
	until = trec_now_ns() + CHILD_TERM_GRACE_NS;
	/* SIGCHLD ends the wait at once; a second stop signal ends the grace. */
	while (!s->child_done && trec_now_ns() < until && !trec_stop_hurry()) {
		trec_stop_signals_wait(10);
		trec_session_reap_child(s, WNOHANG);
	}
	if (!s->child_done) {
		kill(s->wl.pid, SIGKILL);
		trec_session_reap_child(s, 0);
	}
}

/* perf record's exit status: a command killed by a signal, else the stop
 * signal, kills trecord the same way; else the command's exit code. A
 * command trecord ended itself (--duration) ended as asked: 0. */
int trec_session_exit_status(const struct trec_session *s, int *die_sig)
{
	bool known = s->child_done && s->child_status != -1;

	if (s->child_ended && !trec_stop_signal_first())
		return 0;
	if (known && WIFSIGNALED(s->child_status))
		*die_sig = WTERMSIG(s->child_status);
	else if (trec_stop_signal_first())
		*die_sig = trec_stop_signal_first();
	else if (known)
		return trec_workload_exit_code(s->child_status);
	return 0;
}
