// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/archive/archive.h"
#include "record/bpf_loader.h"
#include "record/cli.h"
#include "record/clock.h"
#include "record/consumer.h"
#include "record/flight/flight.h"
#include "record/interp/interp.h"
#include "record/io/meta.h"
#include "record/io/metrics.h"
#include "record/io/output.h"
#include "record/jit/capture.h"
#include "record/kernel/kallsyms.h"
#include "record/session.h"
#include "record/stop_signals.h"
#include "record/syncer.h"
#include "record/unwind/delta_cache.h"
#include "record/archive/symbol_cache.h"
#include "record/unwind/map_sinks.h"
#include "record/session_internal.h"
#include "record/workload.h"

#define INITIAL_SYNC_WAIT_NS 2000000000ULL
#define LOADER_STOP_WAIT_MS 1000

static void die_msg(const char *msg)
{
	fprintf(stderr, "trecord: %s\n", msg);
}

/* ---- records written once ------------------------------------------------ */

static int write_jitsyms(void *ctx, const struct trec_jitsyms *j)
{
	struct trec_session *s = ctx;
	struct trec_writer *w = trec_output_lock(&s->out);

	return w ? trec_output_unlock(&s->out, trec_write_jitsyms(w, j)) : -EIO;
}

void trec_session_write_metrics(struct trec_session *s, uint64_t *bpf)
{
	uint64_t local[TREC_METRIC_COUNT];

	if (!bpf)
		bpf = local;
	if (trec_metrics_read_bpf(&s->bpf, s->fd.metrics, bpf))
		memset(bpf, 0, sizeof(uint64_t) * TREC_METRIC_COUNT);
	trec_metrics_write(&s->out, bpf, &s->cnt, trec_now_ns());
}

/* ---- setup ----------------------------------------------------------------- */

static int open_output(struct trec_session *s, char *msg, size_t msglen)
{
	const struct trec_options *o = s->opt;

	if (!trec_flight_wanted(&o->flight))
		return trec_output_open(&s->out, o->output, o->force, msg, msglen);
	return trec_flight_open(&s->flight, &o->flight, &(struct trec_flight_ctx){
		.path = o->output,
		.archive_level = o->archive_level,
		.quiet = o->quiet,
		.cnt = &s->cnt,
		.bpf = &s->bpf,
		.metrics_fd = s->fd.metrics,
		.syncer = &s->syncer,
	}, &s->out, msg, msglen);
}

/*
 * The sampler's events, as perf record opens them: per thread for a
 * command, -p and -t (nothing else on the machine is interrupted); per
 * CPU for -a, -C, -u and -G, and for processes with more threads than
 * per-thread events are kept for.
 */
static int attach_sampling(struct trec_session *s, const struct trec_options *o, char *msg,
			   size_t len)
{
	uint32_t child = (uint32_t)s->wl.pid;
	struct trec_sample_target t = { .pids = o->pids, .num_pids = o->num_pids };
	int err = -E2BIG;

	if (o->num_tids) { /* o->pids has their processes, to follow */
		t = (struct trec_sample_target){ .tids = o->tids, .num_tids = o->num_tids };
	} else if (s->have_child) { /* a command: not with -p */
		t.pids = &child;
		t.num_pids = 1;
	}
	if (!o->all && !o->cpus && o->uid == TREC_NO_UID && !o->cgroup_id) {
		err = trec_bpf_attach_sampling_tasks(&s->bpf, o->freq_hz, &t, msg, len);
		if ((err == -E2BIG || err == -EMFILE) && o->verbose)
			fprintf(stderr, "trecord: %s: sampling on every CPU instead\n", msg);
	}
	if (err == -E2BIG || err == -EMFILE)
		err = trec_bpf_attach_sampling(&s->bpf, o->freq_hz, msg, len);
	if (!err && o->verbose)
		fprintf(stderr, "trecord: %d sampling event(s), one per %s\n", s->bpf.num_perf_links,
			s->bpf.per_task ? "thread" : "CPU");
	return err;
}

static int follow(struct trec_session *s, uint32_t pid)
{
	uint8_t one = 1;

	return bpf_map_update_elem(s->fd.followed_pids, &pid, &one, BPF_ANY) ? -errno : 0;
}

/* An environment switch: set, and neither empty nor "0". */
static bool env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static int setup(struct trec_session *s, const sigset_t *child_mask)
{
	const struct trec_options *o = s->opt;
	struct trec_bpf_opts bo = {
		.follow_all = o->all,
		.verbose = o->verbose,
		.max_cpu_pct = o->max_cpu_pct,
		.off_cpu = o->off_cpu,
		.defer_unwind = !o->no_deferred_unwind,
		.no_trace_deltas = env_flag("TREC_NO_TRACE_DELTA"),
		.rate_per_cpu = o->period_ns ? 1000000000ULL / o->period_ns : o->freq_hz,
		.offcpu_min_ns = o->offcpu_min_us * 1000,
		.tids = o->tids,
		.num_tids = (uint32_t)o->num_tids,
		.uid = o->uid,
		.cgroup_id = o->cgroup_id,
	};
	char msg[512];
	int err;

	err = trec_bpf_load(&s->bpf, &bo, msg, sizeof(msg));
	if (!err)
		err = trec_bpf_check_freq(o->freq_hz, msg, sizeof(msg));
	if (err)
		goto fail;
	trec_bpf_get_fds(&s->bpf, &s->fd);
	s->bpf.cpus = o->cpus;
	s->bpf.cpus_len = o->cpus_len;
	s->bpf.period_ns = o->period_ns;
	s->fds = (struct trec_map_fds){
		.lpm = s->fd.pid_page_to_mapping_info,
		.reported = s->fd.reported_pids,
		.pages = s->fd.stack_delta_pages,
		.deltas = s->fd.stack_deltas,
		.infos = s->fd.unwind_info_array,
		.defer_files = s->fd.defer_files,
		.maps_gen = trec_bpf_maps_gen(&s->bpf),
	};
	/* Without the mapping, deltas go through batch updates. */
	if (!trec_delta_mem_init(&s->deltas_mem, s->fds.deltas, TREC_DELTAS_MAP_BYTES))
		s->fds.deltas_mem = &s->deltas_mem;
	err = trec_interps_start(&s->interps, &(struct trec_interp_env){
		.out = &s->out, .fd = &s->fd, .bpf = &s->bpf, .verbose = o->verbose });
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
	err = open_output(s, msg, sizeof(msg));
	if (err)
		goto fail;
	trec_output_set_level(&s->out, o->compression_level); /* checked by cli */
	s->jit = trec_jit_capture_new(write_jitsyms, s, &s->cnt, o->verbose, o->quiet);
	if (!s->jit) {
		err = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}
	err = trec_meta_write(&s->out, o);
	if (err) {
		snprintf(msg, sizeof(msg), "writing %s failed: %s", trec_output_name(&s->out),
			 strerror(-err));
		goto fail;
	}

	if (trec_consumer_init(&s->consumer, &(struct trec_consumer_ctx){
		    .out = &s->out,
		    .cnt = &s->cnt,
		    .touched = s->touched,
		    .interps = &s->interps,
		    .jit = s->jit,
		    .ksyms = &s->ksyms,
		    .quiet = o->quiet,
		    .ring_fd = s->fd.trace_events,
		    .stackmap_fd = s->fd.kernel_stackmap,
		    .on_pid_event = trec_syncer_on_pid_event,
		    .on_pid_event_arg = &s->syncer,
		    .defer_fds = { .maps = s->fds, .interp = s->fd.interpreter_offsets },
		    .loads_finished = &s->syncer.deltas.finished,
		    .loads_queued = &s->syncer.deltas.queued,
	    })) {
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

	trec_symbol_cache_use(!o->no_symbol_cache);
	/* The sync thread first: the writer thread forwards pid events to it. */
	err = trec_syncer_start(&s->syncer, &(struct trec_syncer_ctx){
		.verbose = o->verbose,
		.out = &s->out,
		.cnt = &s->cnt,
		.touched = s->touched,
		.interps = &s->interps,
		.jit = s->jit,
		.fds = &s->fds,
		.pid_events_fd = s->fd.pid_events,
		.inhibit_fd = s->fd.inhibit_events,
		.exec_files_fd = s->fd.exec_files,
		.report_events_fd = s->fd.report_events,
		.delta_cache_dir = !o->no_delta_cache &&
					   !trec_delta_cache_dir(s->delta_cache_dir,
								 sizeof(s->delta_cache_dir))
				   ? s->delta_cache_dir : NULL,
		.deferred_waiting = &s->consumer.deferred.waiting,
		.deferred_pids = s->consumer.deferred.pids,
	});
	if (!err)
		err = trec_consumer_start(&s->consumer);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot start the writer thread: %s", strerror(-err));
		goto fail;
	}
	/* Most programs map our libc, ld.so and vdso: load their deltas now,
	 * and the -p pids' mappings, then wait (bounded) so the first samples
	 * of the recording are as complete as the later ones. */
	trec_syncer_request(&s->syncer, TREC_SYNC_PREFETCH, getpid());
	for (size_t i = 0; i < o->num_pids; i++)
		trec_syncer_request(&s->syncer, TREC_SYNC_PID, o->pids[i]);
	trec_syncer_request(&s->syncer, TREC_SYNC_MARK, 0);
	uint64_t until = trec_now_ns() + INITIAL_SYNC_WAIT_NS;

	/* A stop signal already received ends the wait: the recording then
	 * starts and stops at once, leaving a complete (empty) file. */
	while (!atomic_load(&s->syncer.marks_done) && trec_now_ns() < until && !trec_stop_signals_wait(1))
		;
	uint64_t now = trec_now_ns();

	if (!trec_stop_signals_count())
		trec_delta_loader_drain(&s->syncer.deltas, now < until ? (until - now) / 1000000 : 0);

	err = trec_bpf_attach_tracking(&s->bpf, msg, sizeof(msg));
	if (!err)
		err = attach_sampling(s, o, msg, sizeof(msg));
	if (err)
		goto fail;
	s->start_ns = trec_now_ns();
	return 0;
fail:
	die_msg(msg);
	return err ? err : -EINVAL;
}

/* The writer forwards pid events to the sync thread: it stops first. */
static void stop_threads(struct trec_session *s)
{
	trec_consumer_stop(&s->consumer);
	trec_syncer_stop(&s->syncer);
}

/* Whether the delta loader stopped within a second; if it did not (in the
 * middle of a huge file), the process must exit without tearing down the
 * maps it writes. */
static bool stop_loader(struct trec_session *s)
{
	return !s->syncer.deltas.store ||
	       trec_delta_loader_stop(&s->syncer.deltas,
				      trec_stop_hurry() ? 0 : LOADER_STOP_WAIT_MS);
}

static void teardown(struct trec_session *s)
{
	stop_threads(s);
	trec_consumer_free(&s->consumer);
	trec_syncer_free(&s->syncer);
	trec_jit_capture_free(s->jit);
	s->jit = NULL;
	trec_interps_stop(&s->interps);
	trec_flight_free(s->flight);
	s->flight = NULL;
	trec_touched_free(s->touched);
	s->touched = NULL;
	trec_kallsyms_free(&s->ksyms);
	s->fds.deltas_mem = NULL;
	trec_delta_mem_free(&s->deltas_mem);
	trec_bpf_destroy(&s->bpf);
	trec_workload_close(&s->wl);
}

static void print_summary(struct trec_session *s, const uint64_t *bpf,
			  const struct trec_archive_totals *at)
{
	uint64_t waits = atomic_load(&s->cnt.v[TRECORD_METRIC_OFFCPU_WAITS_WRITTEN]);
	uint64_t samples = atomic_load(&s->cnt.v[TRECORD_METRIC_SAMPLES_WRITTEN]) - waits;
	uint64_t lost = bpf[TREC_METRIC_TRACES_LOST_RINGBUF];
	uint64_t ev_lost = bpf[TREC_METRIC_PID_EVENTS_LOST];

	fprintf(stderr, "[ trecord: %llu samples (%llu lost)", (unsigned long long)samples,
		(unsigned long long)lost);
	if (s->opt->off_cpu)
		fprintf(stderr, ", %llu off-CPU waits", (unsigned long long)waits);
	fprintf(stderr, ", %zu pids", trec_consumer_pids_seen(&s->consumer));
	if (ev_lost)
		fprintf(stderr, ", %llu process events lost", (unsigned long long)ev_lost);
	if (bpf[TREC_METRIC_THROTTLED])
		fprintf(stderr, ", %llu throttled to their leaf (BPF CPU budget %g%%, see --max-cpu)",
			(unsigned long long)bpf[TREC_METRIC_THROTTLED], s->opt->max_cpu_pct);
	if (at->files)
		fprintf(stderr, ", embedded symbols of %u files (%llu bytes, %.0f ms)", at->files,
			(unsigned long long)at->bytes, at->build_ns / 1e6);
	if (s->flight) {
		trec_flight_print_summary(s->flight, stderr);
		return;
	}
	fprintf(stderr, ", wrote %s (%llu bytes) ]\n", trec_output_name(&s->out),
		(unsigned long long)s->out.bytes);
}

int trec_record(const struct trec_options *opt, int *die_sig)
{
	struct trec_session s = {
		.opt = opt,
		.wl = { .pid = -1, .go_fd = -1, .err_fd = -1 },
		.syncer = TREC_SYNCER_INIT,
	};
	uint64_t bpf[TREC_METRIC_COUNT] = { 0 };
	struct trec_archive_totals at = { 0 };
	sigset_t orig;
	int err, rc = 0;
	enum trec_stop_cause why = TREC_STOP_UNKNOWN;
	bool loader_done;

	*die_sig = 0;
	if (!trec_flight_wanted(&opt->flight))
		/* as perf record: only a switching recording takes SIGUSR2, and
		 * one sent by mistake (it is how to write a flight recording)
		 * must not kill the recording unfinished */
		signal(SIGUSR2, SIG_IGN);
	else if (trec_switch_signal_enable())
		perror("trecord: warning: cannot catch SIGUSR2");
	/* Blocked everywhere (threads inherit it); the main thread takes them
	 * with sigtimedwait. The command gets the original mask back. */
	trec_stop_signals_block(&orig);

	err = setup(&s, &orig);
	if (err)
		goto abort;
	if (s.have_child) {
		err = trec_workload_start(&s.wl);
		if (err) {
			/* A start that failed: nothing was recorded, and the
			 * previous recording at the path is put back. */
			fprintf(stderr, "trecord: cannot run %s: %s\n", opt->cmd[0], strerror(-err));
			rc = 127;
			goto abort;
		}
	}
	why = trec_session_loop(&s);

	trec_bpf_detach_sampling(&s.bpf);
	s.stop_ns = trec_now_ns();
	trec_session_end_child(&s);
	/* After the command's exit event; then the ring drains completely. */
	trec_bpf_detach_tracking(&s.bpf);
	stop_threads(&s);
	loader_done = stop_loader(&s);
	/* names of JIT code the samples hit, before the metrics count them */
	if (!trec_stop_hurry())
		trec_jit_finish(s.jit, trec_now_ns());
	if (opt->off_cpu)
		trecord_count(&s.cnt, TRECORD_METRIC_OFFCPU_UNFINISHED, trec_bpf_offcpu_pending(&s.bpf));
	trec_session_write_metrics(&s, bpf);
	bool hurried = trec_stop_hurry_now();
	if (hurried && opt->archive_level != TREC_ARCHIVE_NONE && !opt->quiet)
		fprintf(stderr, "trecord: second signal: not embedding symbols, finishing %s\n",
			trec_output_name(&s.out));
	struct trec_summary sum = {
		.start_ns = s.start_ns,
		.end_ns = s.stop_ns,
		.samples = atomic_load(&s.cnt.v[TRECORD_METRIC_SAMPLES_WRITTEN]),
		.lost = bpf[TREC_METRIC_TRACES_LOST_RINGBUF],
		.exit_status = s.child_done ? s.child_status : -1,
		.flags = TREC_SUMMARY_FLAGS(why, why == TREC_STOP_SIGNAL ? trec_stop_signal_first() : 0),
	};

	if (s.flight)
		rc = trec_flight_finish(s.flight, &sum) ? 1 : 0;
	else
		trec_archive_write_session(&s.out, s.touched, s.syncer.sync, opt->archive_level,
					   s.start_ns ? &sum : NULL, &at);
	/* the second signal came while symbols were being embedded */
	if (at.skipped && !hurried && !opt->quiet)
		fprintf(stderr, "trecord: second signal: the symbols of %u more files not embedded, "
			"finishing %s\n", at.skipped, trec_output_name(&s.out));
	if (opt->verbose)
		trec_bpf_print_prog_stats(&s.bpf, stderr);
	err = trec_output_close(&s.out);
	if (err) {
		/* (in flight mode the error was a segment's: trec_flight_finish
		 * said it, naming the files) */
		if (!s.flight)
			fprintf(stderr, "trecord: writing %s failed: %s\n",
				trec_output_name(&s.out), strerror(-err));
		rc = 1;
	} else if (!rc && !opt->quiet) {
		print_summary(&s, bpf, &at);
	}
	if (!rc)
		rc = trec_session_exit_status(&s, die_sig);
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
	trec_output_discard(&s.out);
	if (s.have_child)
		trec_session_reap_child(&s, 0);
	return rc ? rc : 1;
}
