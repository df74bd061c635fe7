// SPDX-License-Identifier: MIT
/* The ring and writer threads (see consumer.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/archive/archive.h"
#include "record/clock.h"
#include "record/consumer.h"
#include "record/interp/interp.h"
#include "record/io/metrics.h"
#include "record/io/output.h"
#include "record/io/stack_cache.h"
#include "record/jit/capture.h"
#include "record/stop_signals.h"
#include "symbolize_rule.h"
#include "trec_types.h"

/* A cached kernel stack: the bare addresses. As many are kept as the
 * stack map has ids (16384, 2-4 MB at the usual 20-40 frames): at 4096 a
 * busy -a recording (5,900 distinct kernel stacks in 20 s beside other
 * jobs' builds) kept starting over, and each miss is a map lookup. Past
 * the bound (a larger map) the cache starts over. */
struct trec_kstack {
	uint32_t num;
	uint64_t ips[];
};

#define KSTACK_CACHE_MAX 16384

static void kstacks_clear(struct trec_consumer *c)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; trec_u64map_next(&c->kstacks, &i, &k, &v);)
		free(v);
	trec_u64map_free(&c->kstacks);
}

static void handle_trace_key(struct trec_consumer *c, const uint8_t *data, size_t len,
			     const struct trec_stack_key *known_key);

/* A whole trace, its key not known yet (resumed deferred samples). */
static void handle_trace(struct trec_consumer *c, const uint8_t *data, size_t len)
{
	handle_trace_key(c, data, len, NULL);
}

static void release_output(struct trec_consumer *c);
static void finish_pending(struct trec_consumer *c);

/* Not held past it: resumed samples are few, and the deferred code sleeps
 * between its tries. */
static void emit_resumed(void *arg, const struct trec_trace *t, size_t len)
{
	finish_pending(arg);
	handle_trace(arg, (const uint8_t *)t, len);
	release_output(arg);
}

int trec_consumer_init(struct trec_consumer *c, const struct trec_consumer_ctx *x)
{
	c->x = *x;
	c->last_seen_pid = UINT32_MAX; /* none */
	c->bases.prefetch = &c->stacks;
	trec_deferred_init(&c->deferred, &x->defer_fds, x->loads_finished, x->cnt, emit_resumed, c);
	trec_ksyms_lazy_init(&c->ksyms, x->ksyms, x->quiet);
	return 0;
}

/* ---- writer ------------------------------------------------------------ */


static const struct trec_kstack *kernel_stack(struct trec_consumer *c, int32_t id)
{
	uint64_t ips[TREC_KERNEL_STACK_DEPTH];
	struct trec_kstack *k = trec_u64map_get(&c->kstacks, (uint32_t)id);
	uint32_t n = 0;

	/* Ids are never deleted from the map, so an id's stack never changes
	 * and one lookup per id is enough. */
	if (k)
		return k;
	if (bpf_map_lookup_elem(c->x.stackmap_fd, &id, ips)) {
		trecord_count(c->x.cnt, TRECORD_METRIC_KERNEL_STACKS_MISSING, 1);
		return NULL;
	}
	while (n < TREC_KERNEL_STACK_DEPTH && ips[n])
		n++;
	k = malloc(sizeof(*k) + n * sizeof(k->ips[0]));
	if (!k)
		return NULL;
	k->num = n;
	for (uint32_t i = 0; i < n; i++)
		trec_ksyms_lazy_use(&c->ksyms, ips[i], i > 0);
	memcpy(k->ips, ips, n * sizeof(k->ips[0]));
	if (c->kstacks.n >= KSTACK_CACHE_MAX)
		kstacks_clear(c);
	return trec_u64map_put_new(&c->kstacks, (uint32_t)id, k);
}

static void copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, TREC_COMM_LEN);
	dst[TREC_COMM_LEN - 1] = 0;
}

/* The sample's fields but its frames. */
static void sample_head(struct trec_sample *smp, const struct trec_trace *t)
{
	smp->time_ns = t->ktime_ns;
	smp->pid = t->pid;
	smp->tid = t->tid;
	smp->cpu = t->cpu;
	smp->flags = t->flags;
	smp->weight = 1;
	smp->offcpu_ns = t->offcpu_ns;
	copy_comm(smp->comm, t->comm);
}

/*
 * The output's lock is kept from one known-stack sample to the next (most
 * samples under -a: a lock and an unlock each were 4% of trecord's CPU at
 * -a -F 20000). It is let go before anything else takes it (the writer's
 * other records, interpreter and JIT notes), before the writer waits or
 * does its periodic work, and every HOLD_SAMPLES samples, so that the
 * other threads wait at most that long.
 */
#define HOLD_SAMPLES 256

static void release_output(struct trec_consumer *c)
{
	if (c->held)
		trec_output_unlock(c->x.out, 0);
	c->held = NULL;
	c->held_samples = 0;
}

static void count_written(struct trec_consumer *c, const struct trec_sample *smp)
{
	trecord_count(c->x.cnt, TRECORD_METRIC_SAMPLES_WRITTEN, 1);
	if (smp->flags & TREC_SAMPLE_F_OFFCPU)
		trecord_count(c->x.cnt, TRECORD_METRIC_OFFCPU_WAITS_WRITTEN, 1);
}

/* A trace whose stack the chunk being written has (stack_cache.h): its
 * stack is not encoded again, nor its files noted; smp has no frames.
 * False: write it whole (the output is not held then). */
static bool write_known_stack(struct trec_consumer *c, const struct trec_sample *smp,
			      struct trec_stack_key key)
{
	struct trec_writer *w = c->held ? c->held : trec_output_lock(c->x.out);
	int rc;

	c->held = NULL;
	if (!w)
		return true; /* nothing more is written */
	rc = trec_stack_cache_write_known(&c->stacks, w, key, smp);
	if (rc == 0) {
		count_written(c, smp);
		c->held = w;
		if (++c->held_samples >= HOLD_SAMPLES)
			release_output(c);
		return true;
	}
	c->held_samples = 0;
	trec_output_unlock(c->x.out, rc == 1 ? 0 : rc);
	return rc != 1;
}

static void count_error_frame(struct trec_consumer *c, const struct trec_trace *t)
{
	const struct trec_frame *f = &t->frames[t->num_frames - 1];

	if (!(f->flags & TREC_FRAME_F_ERROR))
		return;
	if (f->addr_or_line == TREC_ERR_NO_PID_INFO)
		trecord_count(c->x.cnt, TRECORD_METRIC_SAMPLES_UNKNOWN_PID, 1);
	else if (f->addr_or_line == TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION)
		trecord_count(c->x.cnt, TRECORD_METRIC_SAMPLES_UNKNOWN_PC, 1);
}

static void handle_trace_key(struct trec_consumer *c, const uint8_t *data, size_t len,
			     const struct trec_stack_key *known_key)
{
	struct trec_rec_frame frames[TREC_MAX_FRAMES], kframes[TREC_KERNEL_STACK_DEPTH];
	const struct trec_trace *t = (const void *)data;
	const struct trec_kstack *k = NULL;
	struct trec_sample smp = { 0 };
	struct trec_writer *w;
	bool interp_frames = false, absolute_frames = false;
	struct trec_stack_key key;
	uint32_t n;
	int err;

	if (len < TREC_TRACE_HEADER_SIZE || t->num_frames > TREC_MAX_FRAMES ||
	    len < TREC_TRACE_HEADER_SIZE + t->num_frames * sizeof(struct trec_frame)) {
		trecord_count(c->x.cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
	n = t->num_frames;
	if (n)
		count_error_frame(c, t);
	/* Samples come in runs of one process (per CPU, in batches). */
	if (t->pid != c->last_seen_pid) {
		err = 0;
		if (!trec_u64map_get(&c->seen_pids, t->pid))
			trec_u64map_put(&c->seen_pids, t->pid, (void *)1, &err);
		c->last_seen_pid = err ? UINT32_MAX : t->pid;
	}
	key = known_key ? *known_key : trec_stack_key(t->frames, n, t->kernel_stack_id);
	sample_head(&smp, t);
	if (write_known_stack(c, &smp, key))
		return;

	for (uint32_t i = 0; i < n; i++) {
		frames[i] = (struct trec_rec_frame){
			.file_id = t->frames[i].file_id,
			.addr = t->frames[i].addr_or_line,
			.kind = t->frames[i].kind,
			.flags = t->frames[i].flags,
		};
		interp_frames |= trec_interp_frame(frames[i].kind, frames[i].flags);
		absolute_frames |= trec_frame_is_absolute(frames[i].kind, frames[i].flags,
							  frames[i].file_id);
	}
	/* A kernel stack the stack map could not take comes inline, first. */
	uint32_t nk = 0;

	while (nk < n && frames[nk].kind == TREC_FRAME_KERNEL) {
		trec_ksyms_lazy_use(&c->ksyms, frames[nk].addr,
				     frames[nk].flags & TREC_FRAME_F_RETURN_ADDRESS);
		nk++;
	}
	if (t->kernel_stack_id >= 0)
		k = kernel_stack(c, t->kernel_stack_id);

	smp.num_user_frames = n - nk;
	smp.user_frames = frames + nk;
	if (k) {
		for (uint32_t i = 0; i < k->num; i++)
			kframes[i] = (struct trec_rec_frame){
				.addr = k->ips[i],
				.kind = TREC_FRAME_KERNEL,
				/* Every frame but the interrupted one is a return address. */
				.flags = i ? TREC_FRAME_F_RETURN_ADDRESS : 0,
			};
		smp.num_kernel_frames = k->num;
		smp.kernel_frames = kframes;
	} else if (nk) {
		smp.num_kernel_frames = nk;
		smp.kernel_frames = frames;
	}
	if (absolute_frames)
		trec_jit_on_frames(c->x.jit, t->pid, t->ktime_ns, frames + nk, n - nk);

	bool stack_new = true;

	w = trec_output_lock(c->x.out);
	if (w) {
		/* Frames that mean the same in any process, and a kernel stack
		 * that is in them: the next such trace reuses the entry. */
		bool keep = !interp_frames && !absolute_frames && (t->kernel_stack_id < 0 || k);

		err = trec_stack_cache_write_new(&c->stacks, w, key, &smp, keep, &stack_new);
		if (trec_output_unlock(c->x.out, err) >= 0)
			count_written(c, &smp);
	}
	/* The files a sample touched, for the symbols at the end. A stack
	 * already in the chunk's table had its file-relative frames noted
	 * then (most samples under -a: a tenth of the writer's time went
	 * here); a runtime pc is noted per pid, always. */
	for (uint32_t i = 0; i < n && c->x.touched; i++)
		if (stack_new || trec_frame_is_absolute(frames[i].kind, frames[i].flags,
							frames[i].file_id))
			trec_touched_frame(c->x.touched, t->pid, &frames[i]);
	/* Describe the sample's new interpreter code objects while they are
	 * live. Most samples have none: each backend would scan the frames
	 * for its kind in vain. */
	if (interp_frames)
		trec_interps_trace(c->x.interps, t->pid, t->frames, n);
}

/* ---- per-pid state ends with the process ----------------------------------- */

/* Samples of a process can follow its exit event (the kernel samples the
 * rest of do_exit): its state stays this long, in writer-thread time. */
#define PID_DONE_GRACE_NS 1000000000ULL
#define PID_SWEEP_INTERVAL_NS 5000000000ULL
#define PID_SWEEP_BATCH 1024

static void pid_done(struct trec_consumer *c, uint32_t pid)
{
	if (trec_u64map_del(&c->seen_pids, pid))
		c->pids_done++;
	if (c->last_seen_pid == pid)
		c->last_seen_pid = UINT32_MAX;
	if (c->x.touched)
		trec_touched_pid_done(c->x.touched, pid);
	trec_interps_exit(c->x.interps, pid); /* done at the exit event, unless it was lost */
}

/* Pids whose exit event was lost: gone at two sweeps in a row (the mark
 * is the map's value: 1 alive at the last sweep, 2 gone). */
static void sweep_seen(struct trec_consumer *c)
{
	uint32_t gone[PID_SWEEP_BATCH], flip[PID_SWEEP_BATCH];
	size_t ngone = 0, nflip = 0;
	uint64_t pid;
	void *v;

	for (size_t i = 0; trec_u64map_next(&c->seen_pids, &i, &pid, &v);) {
		void *now = kill((pid_t)pid, 0) == 0 || errno != ESRCH ? (void *)1 : (void *)2;

		if (now == (void *)2 && v == (void *)2 && ngone < PID_SWEEP_BATCH)
			gone[ngone++] = (uint32_t)pid;
		else if (now != v && nflip < PID_SWEEP_BATCH)
			flip[nflip++] = (uint32_t)pid;
	}
	/* Not while iterating: a put may grow the map. */
	for (size_t i = 0; i < nflip; i++) {
		v = trec_u64map_get(&c->seen_pids, flip[i]);
		trec_u64map_put(&c->seen_pids, flip[i], v == (void *)1 ? (void *)2 : (void *)1, NULL);
	}
	for (size_t i = 0; i < ngone; i++)
		pid_done(c, gone[i]);
}

static void retire_pids(struct trec_consumer *c)
{
	uint64_t now = trec_now_ns();
	struct trec_exit_ent e;

	while (now > PID_DONE_GRACE_NS &&
	       trec_exit_fifo_pop_due(&c->exited, now - PID_DONE_GRACE_NS, &e))
		pid_done(c, e.pid);
	if (now - c->swept_ns < PID_SWEEP_INTERVAL_NS)
		return;
	c->swept_ns = now;
	sweep_seen(c);
	if (c->x.touched)
		trec_touched_sweep(c->x.touched);
}

static void handle_pid_event(struct trec_consumer *c, const uint8_t *data, size_t len)
{
	const struct trec_pid_event_msg *m = (const void *)data;
	struct trec_pid_event ev = { 0 };
	char filename[TREC_PID_EV_FILENAME_LEN];
	struct trec_writer *w;

	if (len < sizeof(*m) || m->type < TREC_PID_EV_FORK || m->type > TREC_PID_EV_MMAP) {
		trecord_count(c->x.cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
	/* To the sync thread before the writing: deferred_pids.h notes the
	 * event before the sync it asks for. */
	trec_deferred_pids_event(c->deferred.pids, m);
	c->x.on_pid_event(c->x.on_pid_event_arg, m);
	memcpy(filename, m->filename, sizeof(filename));
	filename[sizeof(filename) - 1] = 0;
	ev.time_ns = m->ktime_ns;
	ev.kind = m->type; /* the two enums share their numbers */
	ev.pid = m->pid;
	ev.tid = m->tid;
	ev.parent_pid = m->parent_pid;
	ev.exit_code = m->exit_code;
	copy_comm(ev.comm, m->comm);
	ev.filename = filename;

	w = trec_output_lock(c->x.out);
	if (w && trec_output_unlock(c->x.out, trec_write_pid_event(w, &ev)) >= 0)
		trecord_count(c->x.cnt, TRECORD_METRIC_PID_EVENTS_WRITTEN, 1);

	/* Interpreter code objects of the old image are gone; samples after
	 * this event are of the new one (or none). */
	if (m->type == TREC_PID_EV_EXEC)
		trec_interps_exec(c->x.interps, m->pid);
	else if (m->type == TREC_PID_EV_EXIT)
		trec_interps_exit(c->x.interps, m->pid);
	if (m->type == TREC_PID_EV_EXIT &&
	    trec_exit_fifo_push(&c->exited, m->pid, trec_now_ns()))
		pid_done(c, m->pid);
}

#define KSYMS_INTERVAL_NS 1000000000ULL

/*
 * Rewrites the KSYMS record when stacks used new kernel symbols: all used
 * so far, so the newest record is complete by itself, and at most once a
 * second, so a killed recording still names what its chunks contain.
 */
static void write_ksyms(struct trec_consumer *c, bool final)
{
	struct trec_ksyms rec = { 0 };
	struct trec_writer *w;
	struct trec_ksym *list;
	uint64_t now = trec_now_ns();

	if (!trec_ksyms_lazy_ready(&c->ksyms, final) ||
	    c->ksyms.used.num_used == c->ksyms.used.num_written ||
	    (!final && now - c->ksyms_written_ns < KSYMS_INTERVAL_NS))
		return;
	list = trec_ksym_subset_list(&c->ksyms.used, c->ksyms.k, &rec.num_syms);
	if (!list)
		return;
	/* Later records replace earlier ones in the report. */
	rec.time_ns = now > c->ksyms.time_ns ? now : c->ksyms.time_ns;
	rec.syms = list;
	w = trec_output_lock(c->x.out);
	if (w)
		trec_output_unlock(c->x.out, trec_write_ksyms(w, &rec));
	free(list);
	c->ksyms.used.num_written = c->ksyms.used.num_used;
	c->ksyms_written_ns = now;
}

/* At the end: waiting samples get 3 s for their files' loads, and as long
 * as loads are still running, up to the time a sample may wait for them
 * while recording (a big file under load takes seconds: cc1's 30 MB);
 * then every waiting sample is written. A second stop signal hurries. */
#define DEFERRED_END_WAIT_NS 3000000000ULL

static void finish_deferred(struct trec_consumer *c)
{
	uint64_t start = trec_now_ns();

	while (trec_deferred_pending(&c->deferred) && !trec_stop_hurry()) {
		uint64_t now = trec_now_ns();
		bool loading = c->x.loads_queued && atomic_load(c->x.loads_queued) > 0;

		if (now >= start + TREC_DEFERRED_MAX_WAIT_NS ||
		    (now >= start + DEFERRED_END_WAIT_NS && !loading))
			break;
		trec_deferred_poll(&c->deferred, now, false);
		usleep(5000);
	}
	trec_deferred_poll(&c->deferred, trec_now_ns(), true);
}

/* The trace held back by handle_ring_trace, written now. */
static void finish_pending(struct trec_consumer *c)
{
	const struct trec_trace *t = c->pending;

	if (!t)
		return;
	c->pending = NULL;
	handle_trace_key(c, (const uint8_t *)t, c->pending_len, &c->pending_key);
}

/*
 * A trace message from the ring, made whole (trace deltas:
 * record/io/trace_delta.h; a batch the queue refused is a gap their seq
 * shows), then written. A whole trace that became its CPU's base is held
 * back until the next message: by then the stack-cache slot of its key,
 * fetched when the key was made, is in the cache (its miss was a seventh
 * of trecord's CPU at -a -F 20000). The order of the records is the
 * ring's: the held trace is written before anything after it.
 */
static void handle_ring_trace(struct trec_consumer *c, const uint8_t *data, size_t len)
{
	const struct trec_trace *t = (const void *)data, *whole;
	bool may_hold = len >= TREC_TRACE_HEADER_SIZE && t->msg_type == TREC_MSG_TRACE && t->seq;
	struct trec_stack_key key;

	/* A delta is rebuilt over its CPU's base, which may be the held one. */
	if (!may_hold)
		finish_pending(c);
	switch (trec_trace_delta_apply(&c->bases, data, len, &c->rebuilt, &whole, &len, &key)) {
	case TREC_DELTA_NO_BASE:
		/* Its leaf and error frame are written. */
		trecord_count(c->x.cnt, TRECORD_METRIC_TRACES_DELTA_NO_BASE, 1);
		__attribute__((fallthrough));
	case TREC_DELTA_WHOLE:
	case TREC_DELTA_REBUILT:
		finish_pending(c);
		/* Not when it is the message: the ring's space is BPF's again
		 * once this returns. */
		if (may_hold && whole != t) {
			c->pending = whole;
			c->pending_len = len;
			c->pending_key = key;
			break;
		}
		handle_trace_key(c, (const uint8_t *)whole, len, &key);
		break;
	default:
		trecord_count(c->x.cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
	}
}

/* A message of the ring buffer, where it is (ring order). */
static int on_ring_msg(void *ctx, void *data, size_t len)
{
	struct trec_consumer *c = ctx;
	uint32_t type = 0;

	if (len < sizeof(type)) {
		trecord_count(c->x.cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return 0;
	}
	memcpy(&type, data, sizeof(type));
	if (type == TREC_MSG_TRACE || type == TREC_MSG_TRACE_DELTA) {
		handle_ring_trace(c, data, len);
		return 0;
	}
	finish_pending(c);
	release_output(c);
	if (type == TREC_MSG_PID_EVENT) {
		handle_pid_event(c, data, len);
	} else if (type == TREC_MSG_DEFERRED) {
		trec_deferred_add(&c->deferred, data, trec_deferred_msg_used(data, len));
	} else {
		trecord_count(c->x.cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
	}
	return 0;
}

/*
 * The writer reads the ring buffer itself and makes each message a record
 * in place: no copy of it, no queue, no second thread whose caches the
 * traces cross. The ring (8-16 MiB, bpf_map_sizes.c) is the buffer a slow
 * moment of the writer has (2-3 s of samples at -a -F 20000); past it
 * BPF counts what it drops (TRACES_LOST_RINGBUF). A ring thread copying
 * into a queue for the writer cost -a -F 20000 a sixth of trecord's CPU.
 */
static void *writer_main(void *arg)
{
	struct trec_consumer *c = arg;

	/* BPF wakes us only when a lot is pending (or for pid events); the
	 * timeout bounds the latency otherwise, and a poll that timed out
	 * reads nothing: consume. Deferred samples are retried every few ms
	 * while they wait. */
	while (!atomic_load(&c->stop)) {
		ring_buffer__poll(c->rb, trec_deferred_pending(&c->deferred) ? 5 : 50);
		ring_buffer__consume(c->rb);
		finish_pending(c);
		release_output(c);
		write_ksyms(c, false);
		retire_pids(c);
		trec_deferred_poll(&c->deferred, trec_now_ns(), false);
	}
	ring_buffer__consume(c->rb);
	finish_pending(c);
	release_output(c);
	finish_deferred(c);
	write_ksyms(c, true);
	return NULL;
}

int trec_consumer_start(struct trec_consumer *c)
{
	c->rb = ring_buffer__new(c->x.ring_fd, on_ring_msg, c, NULL);
	if (!c->rb)
		return -errno;
	if (pthread_create(&c->writer_thread, NULL, writer_main, c))
		return -EAGAIN;
	pthread_setname_np(c->writer_thread, "trecord-writer"); /* for top -H, perf */
	c->started = true;
	return 0;
}

void trec_consumer_stop(struct trec_consumer *c)
{
	atomic_store(&c->stop, true);
	if (c->started)
		trec_stop_signals_join(c->writer_thread);
	c->started = false;
}

size_t trec_consumer_pids_seen(const struct trec_consumer *c)
{
	return c->seen_pids.n + c->pids_done;
}

void trec_consumer_free(struct trec_consumer *c)
{
	kstacks_clear(c);
	trec_trace_bases_free(&c->bases);
	trec_u64map_free(&c->seen_pids);
	trec_stack_cache_free(&c->stacks);
	trec_exit_fifo_free(&c->exited);
	trec_deferred_free(&c->deferred);
	trec_ksyms_lazy_free(&c->ksyms);
	if (c->rb)
		ring_buffer__free(c->rb);
	c->rb = NULL;
}
