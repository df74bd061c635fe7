// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "archive.h"
#include "kallsyms.h"
#include "record/jit/capture.h"
#include "session.h"
#include "stop_signals.h"

#define FLUSH_INTERVAL_NS 1000000000ULL     /* a SIGKILL loses at most ~1 s */
#define METRICS_INTERVAL_NS 10000000000ULL
#define QUEUE_MAX_MSGS (1 << 16)
#define QUEUE_MAX_BYTES (64u << 20)
#define CHILD_TERM_GRACE_NS 2000000000ULL
#define INITIAL_SYNC_WAIT_NS 2000000000ULL
#define LOADER_STOP_WAIT_MS 1000
#define LOOP_TICK_MS 100

uint64_t trec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die_msg(const char *msg)
{
	fprintf(stderr, "trecord: %s\n", msg);
}

/* ---- records written once ------------------------------------------------ */

static char *join_args(char *const *argv, int argc)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int write_meta(struct trec_session *s)
{
	const struct trec_options *o = s->opt;
	char freq[16], period[24], ncpu[16], pids[256] = "";
	struct trec_meta_entry e[16];
	struct trec_meta m = { .entries = e };
	char host[256] = "", *cmdline, *command = NULL;
	struct utsname u;
	struct trec_writer *w;
	int cmd_argc = 0, rc;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	snprintf(freq, sizeof(freq), "%u", o->freq_hz);
	snprintf(period, sizeof(period), "%llu", 1000000000ULL / o->freq_hz);
	snprintf(ncpu, sizeof(ncpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t i = 0; i < o->num_pids; i++)
		snprintf(pids + strlen(pids), sizeof(pids) - strlen(pids), "%s%u", i ? "," : "",
			 o->pids[i]);
	if (o->cmd)
		while (o->cmd[cmd_argc])
			cmd_argc++;
	cmdline = join_args(o->argv, o->argc);
	if (o->cmd)
		command = join_args(o->cmd, cmd_argc);
	if (!cmdline || (o->cmd && !command)) {
		free(cmdline);
		free(command);
		return -ENOMEM;
	}

#define META(k, v) (e[m.num_entries++] = (struct trec_meta_entry){ k, v })
	META("trec_version", TREC_VERSION);
	META("cmdline", cmdline);
	META("mode", o->cmd ? (o->all ? "command+all" : "command") : o->all ? "all" : "pid");
	META("command", command ? command : "");
	META("pids", pids);
	META("freq_hz", freq);
	META("sample_period_ns", period);
	META("event", "cpu-clock");
	META("hostname", host);
	META("kernel_release", u.release);
	META("machine", u.machine);
	META("nr_cpus", ncpu);
	META("clock", "CLOCK_MONOTONIC");
	META("archive", trec_archive_level_name(o->archive_level));
#undef META
	w = trec_output_lock(&s->out);
	rc = w ? trec_output_unlock(&s->out, trec_write_meta(w, &m)) : trec_output_error(&s->out);
	free(cmdline);
	free(command);
	return rc;
}

static void load_ksyms(struct trec_session *s)
{
	int err = trec_kallsyms_load(&s->ksyms);

	s->ksyms_time_ns = trec_now_ns();
	if (!err)
		err = trec_ksym_subset_init(&s->ksyms_used, &s->ksyms);
	if (err && !s->opt->quiet)
		fprintf(stderr, "trecord: warning: no kernel symbols (/proc/kallsyms: %s)\n",
			err == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-err));
}

static int write_jitsyms(void *ctx, const struct trec_jitsyms *j)
{
	struct trec_session *s = ctx;
	struct trec_writer *w = trec_output_lock(&s->out);

	return w ? trec_output_unlock(&s->out, trec_write_jitsyms(w, j)) : -EIO;
}

static void write_metrics(struct trec_session *s, uint64_t *bpf)
{
	uint64_t local[TREC_METRIC_COUNT];

	if (!bpf)
		bpf = local;
	if (trec_metrics_read_bpf(&s->bpf, bpf))
		memset(bpf, 0, sizeof(uint64_t) * TREC_METRIC_COUNT);
	trec_metrics_write(&s->out, bpf, &s->cnt, trec_now_ns());
}

/* ---- setup ----------------------------------------------------------------- */

static int follow(struct trec_session *s, uint32_t pid)
{
	uint8_t one = 1;

	return bpf_map_update_elem(s->followed_fd, &pid, &one, BPF_ANY) ? -errno : 0;
}

static int setup(struct trec_session *s, const sigset_t *child_mask)
{
	const struct trec_options *o = s->opt;
	struct trec_bpf_opts bo = {
		.follow_all = o->all,
		.verbose = o->verbose,
	};
	char msg[512];
	int err;

	err = trec_bpf_load(&s->bpf, &bo, msg, sizeof(msg));
	if (!err)
		err = trec_bpf_check_freq(o->freq_hz, msg, sizeof(msg));
	if (err)
		goto fail;
	s->fds = (struct trec_map_fds){
		.lpm = trec_bpf_map_fd(&s->bpf, "pid_page_to_mapping_info"),
		.reported = trec_bpf_map_fd(&s->bpf, "reported_pids"),
		.pages = trec_bpf_map_fd(&s->bpf, "stack_delta_pages"),
		.deltas = trec_bpf_map_fd(&s->bpf, "stack_deltas"),
		.infos = trec_bpf_map_fd(&s->bpf, "unwind_info_array"),
	};
	trec_map_fds_mmap_deltas(&s->fds);
	s->stackmap_fd = trec_bpf_map_fd(&s->bpf, "kernel_stackmap");
	s->pid_events_fd = trec_bpf_map_fd(&s->bpf, "pid_events");
	s->inhibit_fd = trec_bpf_map_fd(&s->bpf, "inhibit_events");
	s->followed_fd = trec_bpf_map_fd(&s->bpf, "followed_pids");
	s->exec_files_fd = trec_bpf_map_fd(&s->bpf, "exec_files");
	err = trec_python_session_start(s);
	if (err) {
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}

	if (o->archive_level != TREC_ARCHIVE_NONE &&
	    !(s->touched = trec_touched_new(o->archive_level == TREC_ARCHIVE_SAMPLED))) {
		err = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}
	err = trec_output_open(&s->out, o->output, o->force, msg, sizeof(msg));
	if (err)
		goto fail;
	s->jit = trec_jit_capture_new(write_jitsyms, s, &s->cnt, o->verbose, o->quiet);
	if (!s->jit) {
		err = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}
	err = write_meta(s);
	if (err) {
		snprintf(msg, sizeof(msg), "writing %s failed: %s", o->output, strerror(-err));
		goto fail;
	}
	load_ksyms(s);

	if (trec_msg_queue_init(&s->queue, QUEUE_MAX_MSGS, QUEUE_MAX_BYTES) ||
	    trec_msg_queue_init(&s->syncq, QUEUE_MAX_MSGS, QUEUE_MAX_BYTES)) {
		err = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}

	/* Fork before any thread exists; the child waits for trec_workload_start. */
	if (o->cmd) {
		err = trec_workload_fork(&s->wl, o->cmd, child_mask);
		if (err) {
			snprintf(msg, sizeof(msg), "cannot start %s: %s", o->cmd[0], strerror(-err));
			goto fail;
		}
		s->have_child = true;
		err = follow(s, s->wl.pid);
		if (err) {
			snprintf(msg, sizeof(msg), "cannot follow pid %d: %s", s->wl.pid,
				 strerror(-err));
			goto fail;
		}
	}
	for (size_t i = 0; i < o->num_pids; i++) {
		err = follow(s, o->pids[i]);
		if (err) {
			snprintf(msg, sizeof(msg), "cannot follow pid %u: %s", o->pids[i],
				 strerror(-err));
			goto fail;
		}
	}

	/* The sync thread first: the ring thread forwards pid events to it. */
	err = trec_sync_thread_start(s);
	if (!err)
		err = trec_ring_thread_start(s);
	if (!err)
		err = trec_writer_thread_start(s);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot start the reader threads: %s", strerror(-err));
		goto fail;
	}
	/* Most programs map our libc, ld.so and vdso: load their deltas now,
	 * and the -p pids' mappings, then wait (bounded) so the first samples
	 * of the recording are as complete as the later ones. */
	trec_sync_request(s, TREC_SYNC_PREFETCH, getpid());
	for (size_t i = 0; i < o->num_pids; i++)
		trec_sync_request(s, TREC_SYNC_PID, o->pids[i]);
	trec_sync_request(s, TREC_SYNC_MARK, 0);
	uint64_t until = trec_now_ns() + INITIAL_SYNC_WAIT_NS;

	/* A stop signal already received ends the wait: the recording then
	 * starts and stops at once, leaving a complete (empty) file. */
	while (!atomic_load(&s->marks_done) && trec_now_ns() < until && !trec_stop_signals_wait(1))
		;
	uint64_t now = trec_now_ns();

	if (!trec_stop_signals_count())
		trec_delta_loader_drain(&s->deltas, now < until ? (until - now) / 1000000 : 0);

	err = trec_bpf_attach_tracking(&s->bpf, msg, sizeof(msg));
	if (!err)
		err = trec_bpf_attach_sampling(&s->bpf, o->freq_hz, msg, sizeof(msg));
	if (err)
		goto fail;
	s->start_ns = trec_now_ns();
	return 0;
fail:
	die_msg(msg);
	return err ? err : -EINVAL;
}

/* ---- the recording loop ----------------------------------------------------- */

static bool any_alive(const struct trec_options *o)
{
	for (size_t i = 0; i < o->num_pids; i++)
		if (!kill((pid_t)o->pids[i], 0) || errno != ESRCH)
			return true;
	return false;
}

static void reap_child(struct trec_session *s, int flags)
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

/* Runs until the command exits, a stop signal, --duration, or a write
 * error. */
static void record_loop(struct trec_session *s)
{
	const struct trec_options *o = s->opt;
	uint64_t deadline = o->duration_s > 0 ? s->start_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	uint64_t next_flush = s->start_ns + FLUSH_INTERVAL_NS;
	uint64_t next_metrics = s->start_ns + METRICS_INTERVAL_NS;

	for (;;) {
		uint64_t now;
		unsigned wait_ms = LOOP_TICK_MS;

		/* --duration ends on time, not on the next tick. */
		now = trec_now_ns();
		if (deadline && deadline < now + wait_ms * 1000000ULL)
			wait_ms = deadline > now ? (unsigned)((deadline - now) / 1000000) + 1 : 0;
		if (trec_stop_signals_wait(wait_ms))
			return;
		reap_child(s, WNOHANG);
		if (s->child_done)
			return;
		now = trec_now_ns();
		if (deadline && now >= deadline)
			return;
		if (o->num_pids && !any_alive(o))
			return;
		if (trec_output_error(&s->out))
			return;
		if (now >= next_flush) {
			struct trec_writer *w = trec_output_lock(&s->out);

			if (w)
				trec_output_unlock(&s->out, trec_writer_flush(w));
			next_flush = now + FLUSH_INTERVAL_NS;
		}
		if (now >= next_metrics) {
			write_metrics(s, NULL);
			next_metrics = now + METRICS_INTERVAL_NS;
		}
	}
}

/* The command outlived the recording (signal to trecord, --duration,
 * write error): end it like perf does, SIGTERM then SIGKILL. */
static void end_child(struct trec_session *s)
{
	uint64_t until;

	reap_child(s, WNOHANG);
	if (!s->have_child || s->child_done)
		return;
	kill(s->wl.pid, SIGTERM);
	until = trec_now_ns() + CHILD_TERM_GRACE_NS;
	/* SIGCHLD ends the wait at once; a second stop signal ends the grace. */
	while (!s->child_done && trec_now_ns() < until && !trec_stop_hurry()) {
		trec_stop_signals_wait(10);
		reap_child(s, WNOHANG);
	}
	if (!s->child_done) {
		kill(s->wl.pid, SIGKILL);
		reap_child(s, 0);
	}
}

static void stop_threads(struct trec_session *s)
{
	atomic_store(&s->stop_ring, true);
	if (s->ring_started)
		pthread_join(s->ring_thread, NULL);
	else
		trec_msg_queue_close(&s->queue);
	if (s->writer_started)
		pthread_join(s->writer_thread, NULL);
	atomic_store(&s->stop_sync, true);
	if (s->sync_started)
		pthread_join(s->sync_thread, NULL);
	s->ring_started = s->writer_started = s->sync_started = false;
}

/* Whether the delta loader stopped within a second; if it did not (in the
 * middle of a huge file), the process must exit without tearing down the
 * maps it writes. */
static bool stop_loader(struct trec_session *s)
{
	return !s->deltas.store ||
	       trec_delta_loader_stop(&s->deltas, trec_stop_hurry() ? 0 : LOADER_STOP_WAIT_MS);
}

static void teardown(struct trec_session *s)
{
	stop_threads(s);
	trec_consumer_free(s);
	trec_syncer_free(s);
	trec_jit_capture_free(s->jit);
	s->jit = NULL;
	trec_python_session_stop(s);
	trec_ksym_subset_free(&s->ksyms_used);
	trec_kallsyms_free(&s->ksyms);
	trec_map_fds_unmap_deltas(&s->fds);
	trec_bpf_destroy(&s->bpf);
	if (s->queue.ring)
		trec_msg_queue_destroy(&s->queue);
	if (s->syncq.ring)
		trec_msg_queue_destroy(&s->syncq);
	trec_workload_close(&s->wl);
}

static void print_summary(struct trec_session *s, const uint64_t *bpf, uint64_t bytes,
			  const struct trec_archive_totals *at)
{
	uint64_t samples = atomic_load(&s->cnt.v[TRECORD_METRIC_SAMPLES_WRITTEN]);
	uint64_t lost = bpf[TREC_METRIC_TRACES_LOST_RINGBUF] +
			atomic_load(&s->cnt.v[TRECORD_METRIC_QUEUE_DROPPED_TRACES]);
	uint64_t ev_lost = bpf[TREC_METRIC_PID_EVENTS_LOST] +
			   atomic_load(&s->cnt.v[TRECORD_METRIC_QUEUE_DROPPED_EVENTS]);

	fprintf(stderr, "[ trecord: %llu samples (%llu lost), %zu pids",
		(unsigned long long)samples, (unsigned long long)lost, s->seen_pids.n);
	if (ev_lost)
		fprintf(stderr, ", %llu process events lost", (unsigned long long)ev_lost);
	if (at->files)
		fprintf(stderr, ", embedded symbols of %u files (%llu bytes, %.0f ms)", at->files,
			(unsigned long long)at->bytes, at->build_ns / 1e6);
	fprintf(stderr, ", wrote %s (%llu bytes) ]\n", s->opt->output, (unsigned long long)bytes);
}

/* perf record's exit status: a command killed by a signal, else the stop
 * signal, kills trecord the same way; else the command's exit code. */
static int exit_status(const struct trec_session *s, int *die_sig)
{
	bool known = s->child_done && s->child_status != -1;

	if (known && WIFSIGNALED(s->child_status))
		*die_sig = WTERMSIG(s->child_status);
	else if (trec_stop_signal_first())
		*die_sig = trec_stop_signal_first();
	else if (known)
		return trec_workload_exit_code(s->child_status);
	return 0;
}

int trec_record(const struct trec_options *opt, int *die_sig)
{
	struct trec_session s = {
		.opt = opt,
		.wl = { .pid = -1, .go_fd = -1, .err_fd = -1 },
		.sync_efd = -1,
		.sync_epfd = -1,
	};
	uint64_t bpf[TREC_METRIC_COUNT] = { 0 };
	struct trec_archive_totals at = { 0 };
	sigset_t orig;
	int err, rc = 0;
	bool loader_done;
	struct stat st;

	*die_sig = 0;
	/* Blocked everywhere (threads inherit it); the main thread takes them
	 * with sigtimedwait. The command gets the original mask back. */
	trec_stop_signals_block(&orig);

	err = setup(&s, &orig);
	if (err)
		goto abort;
	if (s.have_child) {
		err = trec_workload_start(&s.wl);
		if (err) {
			fprintf(stderr, "trecord: cannot run %s: %s\n", opt->cmd[0], strerror(-err));
			rc = 127;
		}
	}
	if (!rc)
		record_loop(&s);

	trec_bpf_detach_sampling(&s.bpf);
	s.stop_ns = trec_now_ns();
	end_child(&s);
	/* After the command's exit event; then the ring drains completely. */
	trec_bpf_detach_tracking(&s.bpf);
	stop_threads(&s);
	loader_done = stop_loader(&s);
	/* names of JIT code the samples hit, before the metrics count them */
	if (!trec_stop_hurry())
		trec_jit_finish(s.jit, trec_now_ns());
	write_metrics(&s, bpf);
	trec_stop_signals_wait(0);
	if (trec_stop_hurry() && opt->archive_level != TREC_ARCHIVE_NONE && !opt->quiet)
		fprintf(stderr, "trecord: second signal: not embedding symbols, finishing %s\n",
			opt->output);
	trec_session_write_archives(&s, &at);
	if (s.start_ns) {
		struct trec_summary sum = {
			.start_ns = s.start_ns,
			.end_ns = s.stop_ns,
			.samples = atomic_load(&s.cnt.v[TRECORD_METRIC_SAMPLES_WRITTEN]),
			.lost = bpf[TREC_METRIC_TRACES_LOST_RINGBUF] +
				atomic_load(&s.cnt.v[TRECORD_METRIC_QUEUE_DROPPED_TRACES]),
			.exit_status = s.child_done ? s.child_status : -1,
		};
		struct trec_writer *w = trec_output_lock(&s.out);

		if (w)
			trec_output_unlock(&s.out, trec_write_summary(w, &sum));
	}
	if (opt->verbose)
		trec_bpf_print_prog_stats(&s.bpf, stderr);
	err = trec_output_close(&s.out);
	if (err) {
		fprintf(stderr, "trecord: writing %s failed: %s\n", opt->output, strerror(-err));
		rc = 1;
	} else if (!rc && !opt->quiet) {
		print_summary(&s, bpf, stat(opt->output, &st) ? 0 : (uint64_t)st.st_size, &at);
	}
	if (!rc)
		rc = exit_status(&s, die_sig);
	if (!loader_done) {
		/* The recording is complete. Not exit(): its handlers (the ASan
		 * build's leak check, stdio) would run beside the loading thread;
		 * _exit ends that thread with the process. */
		if (opt->verbose)
			fprintf(stderr, "trecord: not waiting for a stack-delta load in progress\n");
		if (*die_sig)
			trec_die_by_signal(*die_sig);
		fflush(NULL);
		_exit(rc);
	}
	teardown(&s);
	return rc;

abort:
	/* Nothing was recorded: do not leave an empty recording behind. */
	teardown(&s);
	if (s.out.w) {
		trec_output_close(&s.out);
		unlink(opt->output);
	}
	if (s.have_child)
		reap_child(&s, 0);
	return 1;
}
