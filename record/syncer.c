// SPDX-License-Identifier: MIT
/*
 * The sync thread (see syncer.h). Exited pids keep their entries for a
 * grace period (pid_sync.h); a periodic sweep drops pids whose exit was
 * missed, so the trie cannot grow without bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/archive/archive.h"
#include "record/clock.h"
#include "record/interp/interp.h"
#include "record/io/metrics.h"
#include "record/io/output.h"
#include "record/jit/capture.h"
#include "record/procs/pid_reports.h"
#include "record/procs/pid_sync.h"
#include "record/syncer.h"
#include "record/unwind/deferred/deferred_pids.h"
#include "record/unwind/map_sinks.h"
#include "trec_types.h"

/* Request queue bounds: the writer's are the same. */
#define REQUESTS_MAX_MSGS (1 << 16)
#define REQUESTS_MAX_BYTES (64u << 20)

static uint64_t now_ns(void *ctx)
{
	return trec_now_ns();
}

#define SWEEP_INTERVAL_NS (5ULL * 1000000000ULL)

static int push_request(struct trec_syncer *s, const struct trec_sync_req *r)
{
	uint64_t one = 1;
	int err = trec_msg_queue_push(&s->requests, r, sizeof(*r));

	/* An exec'd image must be synced while it runs: wake the thread. */
	if (!err && s->efd >= 0 && write(s->efd, &one, sizeof(one)) < 0)
		err = -errno;
	else if (err)
		trecord_count(s->x.cnt, TRECORD_METRIC_SYNC_REQUESTS_DROPPED, 1);
	return err;
}

int trec_syncer_request(struct trec_syncer *s, uint32_t kind, uint32_t pid)
{
	struct trec_sync_req r = { .kind = kind, .pid = pid };

	return push_request(s, &r);
}

void trec_syncer_on_pid_event(void *arg, const struct trec_pid_event_msg *m)
{
	struct trec_syncer *s = arg;
	struct trec_sync_req r = { .pid = m->pid, .parent = m->parent_pid, .time_ns = m->ktime_ns };

	/* A new image needs its mappings now, a forked child its parent's;
	 * an exited pid none at all. */
	if (m->type == TREC_PID_EV_FORK)
		r.kind = TREC_SYNC_FORK;
	else if (m->type == TREC_PID_EV_EXEC)
		r.kind = TREC_SYNC_PID;
	else if (m->type == TREC_PID_EV_EXIT)
		r.kind = TREC_SYNC_EXIT;
	else
		return;
	push_request(s, &r);
}

static void on_report(void *ctx, int cpu, void *data, __u32 size)
{
	/* Only a wake-up: the pids themselves are in pid_events. */
}

static void sync_pid(struct trec_syncer *s, uint32_t pid)
{
	uint64_t t = trec_now_ns();
	int err = trec_pid_sync_pid(s->sync, pid);

	/* Its NO_PID deferrals from before t can be walked, or stop waiting. */
	if (!err && s->x.deferred_pids)
		trec_deferred_pids_synced(s->x.deferred_pids, pid, t);
	else if (err == -ESRCH && s->x.deferred_pids)
		trec_deferred_pids_gone(s->x.deferred_pids, pid, t);
}

static void sync_reported(void *ctx, uint32_t pid)
{
	sync_pid(ctx, pid);
}

#define REQUEST_BATCH 256

static void sync_exited(struct trec_syncer *s, uint32_t pid)
{
	/* Never synced: its maps are gone with it (a report may still try). */
	if (!trec_pid_sync_known(s->sync, pid) && s->x.deferred_pids)
		trec_deferred_pids_gone(s->x.deferred_pids, pid, trec_now_ns());
	trec_pid_sync_exited(s->sync, pid);
	/* its JIT names are read once its last samples are in */
	trec_jit_on_exit(s->x.jit, pid, trec_now_ns());
}

/* Whether reqs after i ask for a full sync of pid (its exec): a fork copy
 * would give the new image the parent's mappings until then. */
static bool exec_follows(const struct trec_sync_req *reqs, size_t i, size_t n, uint32_t pid)
{
	for (size_t j = i + 1; j < n; j++)
		if (reqs[j].kind == TREC_SYNC_PID && reqs[j].pid == pid)
			return true;
	return false;
}

/* Whether the forked child has exec'd since (the writer thread notes the
 * exec before it asks for the sync, deferred_pids.h): a copy of the
 * parent's entries now would describe the old image under the new one
 * until that sync. */
static bool exec_since(struct trec_syncer *s, const struct trec_sync_req *r)
{
	return s->x.deferred_pids &&
	       trec_deferred_pids_replaced_after(s->x.deferred_pids, r->pid, r->time_ns);
}

static void drain_requests(struct trec_syncer *s)
{
	struct trec_sync_req reqs[REQUEST_BATCH];
	struct trec_msg *m;
	bool closed;
	size_t n;

	do {
		for (n = 0; n < REQUEST_BATCH && (m = trec_msg_queue_pop(&s->requests, 0, &closed)); n++) {
			memcpy(&reqs[n], m->data, sizeof(reqs[n]));
			free(m);
		}
		for (size_t i = 0; i < n; i++) {
			const struct trec_sync_req *r = &reqs[i];

			if (r->kind == TREC_SYNC_PID)
				sync_pid(s, r->pid);
			else if (r->kind == TREC_SYNC_FORK && !exec_follows(reqs, i, n, r->pid) &&
				 !exec_since(s, r))
				trec_pid_sync_fork(s->sync, r->pid, r->parent);
			else if (r->kind == TREC_SYNC_EXIT)
				sync_exited(s, r->pid);
			else if (r->kind == TREC_SYNC_PREFETCH)
				trec_pid_sync_prefetch(s->sync, r->pid);
			else if (r->kind == TREC_SYNC_JIT)
				trec_jit_read_live(s->x.jit, trec_now_ns());
			else if (r->kind == TREC_SYNC_MARK)
				atomic_fetch_add(&s->marks_done, 1);
		}
	} while (n == REQUEST_BATCH);
}

static void publish_stats(struct trec_syncer *s)
{
	struct trec_pid_sync_stats st;
	struct trec_delta_loader *dl = &s->deltas;

	trec_pid_sync_get_stats(s->sync, &st);
	trecord_set(s->x.cnt, TRECORD_METRIC_PID_SYNCS, st.syncs);
	trecord_set(s->x.cnt, TRECORD_METRIC_PID_SYNCS_GONE, st.sync_gone);
	trecord_set(s->x.cnt, TRECORD_METRIC_PID_SYNCS_CHANGED, st.sync_changed);
	trecord_set(s->x.cnt, TRECORD_METRIC_PID_FORK_COPIES, st.fork_copies);
	trecord_set(s->x.cnt, TRECORD_METRIC_PIDS_TRACKED, st.pids);
	trecord_set(s->x.cnt, TRECORD_METRIC_FILES, st.files);
	trecord_set(s->x.cnt, TRECORD_METRIC_FILES_KEPT_OPEN, st.files_kept);
	trecord_set(s->x.cnt, TRECORD_METRIC_FILES_NOT_KEPT, st.files_not_kept);
	trecord_set(s->x.cnt, TRECORD_METRIC_FILES_WITH_DELTAS, atomic_load(&dl->loaded));
	trecord_set(s->x.cnt, TRECORD_METRIC_DELTA_FAILURES, atomic_load(&dl->failed));
	trecord_set(s->x.cnt, TRECORD_METRIC_LPM_ENTRIES, st.lpm_entries);
	trecord_set(s->x.cnt, TRECORD_METRIC_LPM_FAILURES, st.lpm_failures);
	trecord_set(s->x.cnt, TRECORD_METRIC_STACK_DELTAS_USED, atomic_load(&dl->deltas_used));
	trecord_set(s->x.cnt, TRECORD_METRIC_UNWIND_INFOS_USED, atomic_load(&dl->infos_used));
	trecord_set(s->x.cnt, TRECORD_METRIC_DELTA_PAGES_USED, atomic_load(&dl->pages_used));
	trecord_set(s->x.cnt, TRECORD_METRIC_DELTA_CACHE_HITS, atomic_load(&dl->cache_hits));
	trecord_set(s->x.cnt, TRECORD_METRIC_DELTA_CACHE_REJECTED, atomic_load(&dl->cache_rejected));
	trec_interps_publish_stats(s->x.interps, s->x.cnt);
}

/* JIT-like pids whose jitdump was mapped after their code was synced */
static void resync_late_jit(struct trec_syncer *s)
{
	uint32_t pids[TREC_JIT_WATCH_BATCH];
	size_t n = trec_jit_recheck(s->x.jit, trec_now_ns(), pids);

	for (size_t i = 0; i < n; i++)
		sync_pid(s, pids[i]);
}

/* Above the profiled processes: a new one must be synced while it runs,
 * and 40 CPU-bound ones starting at once kept this thread off the CPU
 * for 50-100 ms mid-sync (a quarter of their maps read after they had
 * exited). Its work is bounded by the events it is sent. Not root: as
 * is. */
#define SYNC_NICE (-10)

static void *sync_main(void *arg)
{
	struct trec_syncer *s = arg;
	uint64_t last_sweep = trec_now_ns();

	setpriority(PRIO_PROCESS, (id_t)gettid(), SYNC_NICE);

	while (!atomic_load(&s->stop)) {
		struct epoll_event evs[2];
		int n = epoll_wait(s->epfd, evs, 2, 50);
		uint64_t v;

		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == s->efd) {
				if (read(s->efd, &v, sizeof(v)) < 0)
					continue;
			} else {
				perf_buffer__consume(s->pb);
			}
		}
		drain_requests(s);
		trec_pid_reports_drain(s->x.pid_events_fd, s->x.inhibit_fd, sync_reported, s);
		bool hold = s->x.deferred_waiting && atomic_load(s->x.deferred_waiting);

		trec_pid_sync_hold_exited(s->sync, hold);
		trec_jit_hold_exited(s->x.jit, hold);
		trec_pid_sync_reap(s->sync, false);
		trec_jit_tick(s->x.jit, trec_now_ns());
		resync_late_jit(s);
		if (trec_now_ns() - last_sweep > SWEEP_INTERVAL_NS) {
			trec_pid_sync_sweep(s->sync);
			last_sweep = trec_now_ns();
		}
		publish_stats(s);
	}
	/* The writer thread has forwarded its last pid events: apply them, so
	 * the final metrics show what the trie really holds. */
	drain_requests(s);
	trec_pid_sync_reap(s->sync, true);
	publish_stats(s);
	return NULL;
}

/* ---- pid_sync's destinations ------------------------------------------- */

static int lpm_update(void *ctx, const struct trec_pid_page_key *k,
		      const struct trec_pid_page_value *v)
{
	struct trec_syncer *s = ctx;

	return trec_bpf_lpm_update(s->x.fds, k, v);
}

static int lpm_delete(void *ctx, const struct trec_pid_page_key *k)
{
	struct trec_syncer *s = ctx;

	return trec_bpf_lpm_delete(s->x.fds, k);
}

static void report_reset(void *ctx, uint32_t pid)
{
	struct trec_syncer *s = ctx;

	trec_bpf_report_reset(s->x.fds, pid);
}

static int write_file(void *ctx, const struct trec_file_info *f)
{
	struct trec_syncer *s = ctx;
	struct trec_writer *w = trec_output_lock(s->x.out);

	return w ? trec_output_unlock(s->x.out, trec_write_file(w, f)) : -EIO;
}

static int write_mappings(void *ctx, const struct trec_mapping_snapshot *m)
{
	struct trec_syncer *s = ctx;
	struct trec_writer *w = trec_output_lock(s->x.out);

	if (s->x.touched) /* its files explain the pid's absolute frames */
		trec_touched_mappings(s->x.touched, m);
	trec_jit_on_mappings(s->x.jit, m);
	return w ? trec_output_unlock(s->x.out, trec_write_mappings(w, m)) : -EIO;
}

static int write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct trec_syncer *s = ctx;
	struct trec_writer *w = trec_output_lock(s->x.out);

	return w ? trec_output_unlock(s->x.out, trec_write_blob(w, type, b)) : -EIO;
}

static void load_deltas(void *ctx, uint64_t file_id, int fd, uint64_t size, const char *name)
{
	struct trec_syncer *s = ctx;

	trec_delta_loader_submit(&s->deltas, file_id, fd, size, name);
}

static void expect_deltas(void *ctx, uint64_t file_id)
{
	struct trec_syncer *s = ctx;

	trec_delta_loader_expect(&s->deltas, file_id);
}

static int exec_file(void *ctx, const struct trec_exec_file_key *k,
		     const struct trec_exec_file_value *v)
{
	struct trec_syncer *s = ctx;

	return bpf_map_update_elem(s->x.exec_files_fd, k, v, BPF_ANY) ? -errno : 0;
}

static int interp_mapping(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			  uint64_t bias)
{
	struct trec_syncer *s = ctx;

	return trec_interps_mapping(s->x.interps, pid, file_id, open_path, bias);
}

static uint64_t interp_anon_mapping(void *ctx, uint32_t pid, uint64_t start, uint64_t end,
				    uint64_t *file_id)
{
	struct trec_syncer *s = ctx;
	struct trec_file_deltas d = { 0 };
	const char *what = "[interpreter code]";
	uint64_t block = trec_interps_anon(s->x.interps, pid, start, end, file_id, &d, &what);

	if (block && d.num)
		trec_delta_loader_submit_deltas(&s->deltas, *file_id, &d, what);
	return block;
}

static const struct trec_pid_sync_ops sync_ops = {
	.lpm_update = lpm_update,
	.lpm_delete = lpm_delete,
	.report_reset = report_reset,
	.load_deltas = load_deltas,
	.expect_deltas = expect_deltas,
	.write_file = write_file,
	.write_mappings = write_mappings,
	.write_blob = write_blob,
	.exec_mapping = interp_mapping,
	.anon_exec_mapping = interp_anon_mapping,
	.exec_file = exec_file,
	.now_ns = now_ns,
};

void trec_syncer_stop(struct trec_syncer *s)
{
	atomic_store(&s->stop, true);
	if (s->started)
		pthread_join(s->thread, NULL);
	s->started = false;
}

void trec_syncer_free(struct trec_syncer *s)
{
	if (s->pb)
		perf_buffer__free(s->pb);
	if (s->efd >= 0)
		close(s->efd);
	if (s->epfd >= 0)
		close(s->epfd);
	trec_pid_sync_free(s->sync);
	if (s->deltas.store) {
		trec_delta_loader_stop(&s->deltas, ~0U);
		trec_delta_loader_destroy(&s->deltas);
	}
	if (s->requests.ring)
		trec_msg_queue_destroy(&s->requests);
	s->pb = NULL;
	s->sync = NULL;
	s->efd = s->epfd = -1;
}

int trec_syncer_start(struct trec_syncer *s, const struct trec_syncer_ctx *x)
{
	int err;

	s->x = *x;
	err = trec_msg_queue_init(&s->requests, REQUESTS_MAX_MSGS, REQUESTS_MAX_BYTES);
	if (!err)
		err = trec_delta_loader_init(&s->deltas, &trec_bpf_delta_sink, x->fds, x->verbose);
	s->deltas.cache_dir = x->delta_cache_dir;
	s->deltas.defer_files_fd = x->fds->defer_files;
	if (!err)
		err = trec_delta_loader_start(&s->deltas);
	if (err)
		return err;
	s->sync = trec_pid_sync_new(&sync_ops, s, x->verbose);
	if (!s->sync)
		return -ENOMEM;
	s->pb = perf_buffer__new(x->report_events_fd, 1, on_report, NULL, s, NULL);
	if (!s->pb)
		return -errno;
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->efd < 0 || s->epfd < 0)
		return -errno;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = s->efd };

	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &ev))
		return -errno;
	ev.data.fd = perf_buffer__epoll_fd(s->pb);
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		return -errno;
	if (pthread_create(&s->thread, NULL, sync_main, s))
		return -EAGAIN;
	pthread_setname_np(s->thread, "trecord-sync");
	s->started = true;
	return 0;
}
