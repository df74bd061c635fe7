// SPDX-License-Identifier: MIT
/*
 * From the BPF ring buffer to records: the ring thread copies messages into
 * the queue; the writer thread converts them (kernel stack ids into frames)
 * and writes SAMPLE and PID_EVENT records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "archive.h"
#include "record/jit/capture.h"
#include "python_sync.h"
#include "session.h"
#include "trec_types.h"

struct trec_kstack {
	uint32_t num;
	struct trec_rec_frame frames[];
};

static int on_ring_msg(void *ctx, void *data, size_t len)
{
	struct trec_session *s = ctx;
	uint32_t type = 0;

	if (len >= sizeof(type))
		memcpy(&type, data, sizeof(type));
	/* Straight to the sync thread: through the writer's queue, a new
	 * process would wait behind the samples queued before its event. */
	if (type == TREC_MSG_PID_EVENT && len >= sizeof(struct trec_pid_event_msg))
		trec_sync_on_pid_event(s, data);
	if (trec_msg_queue_push_prio(&s->queue, data, len, type == TREC_MSG_PID_EVENT))
		trecord_count(&s->cnt, type == TREC_MSG_PID_EVENT ? TRECORD_METRIC_QUEUE_DROPPED_EVENTS
								 : TRECORD_METRIC_QUEUE_DROPPED_TRACES, 1);
	return 0;
}

static void *ring_main(void *arg)
{
	struct trec_session *s = arg;

	/* BPF wakes us only when a lot is pending (or for pid events); the
	 * timeout bounds the latency otherwise. */
	while (!atomic_load(&s->stop_ring)) {
		ring_buffer__poll(s->rb, 50);
		ring_buffer__consume(s->rb);
	}
	ring_buffer__consume(s->rb);
	trec_msg_queue_close(&s->queue);
	return NULL;
}

int trec_ring_thread_start(struct trec_session *s)
{
	int fd = trec_bpf_map_fd(&s->bpf, "trace_events");

	s->rb = ring_buffer__new(fd, on_ring_msg, s, NULL);
	if (!s->rb)
		return -errno;
	if (pthread_create(&s->ring_thread, NULL, ring_main, s))
		return -EAGAIN;
	s->ring_started = true;
	return 0;
}

/* ---- writer ------------------------------------------------------------ */

static const struct trec_kstack *kernel_stack(struct trec_session *s, int32_t id)
{
	uint64_t ips[TREC_KERNEL_STACK_DEPTH];
	struct trec_kstack *k = trec_u64map_get(&s->kstacks, (uint32_t)id);
	uint32_t n = 0;
	int err;

	/* Ids are never deleted from the map, so an id's stack never changes
	 * and one lookup per id is enough. */
	if (k)
		return k;
	if (bpf_map_lookup_elem(s->stackmap_fd, &id, ips)) {
		trecord_count(&s->cnt, TRECORD_METRIC_KERNEL_STACKS_MISSING, 1);
		return NULL;
	}
	while (n < TREC_KERNEL_STACK_DEPTH && ips[n])
		n++;
	k = malloc(sizeof(*k) + n * sizeof(k->frames[0]));
	if (!k)
		return NULL;
	k->num = n;
	for (uint32_t i = 0; i < n; i++)
		trec_ksym_subset_add(&s->ksyms_used, &s->ksyms, ips[i], i > 0);
	for (uint32_t i = 0; i < n; i++)
		k->frames[i] = (struct trec_rec_frame){
			.addr = ips[i],
			.kind = TREC_FRAME_KERNEL,
			/* Every frame but the interrupted one is a return address. */
			.flags = i ? TREC_FRAME_F_RETURN_ADDRESS : 0,
		};
	trec_u64map_put(&s->kstacks, (uint32_t)id, k, &err);
	if (err) {
		free(k);
		return NULL;
	}
	return k;
}

static void copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, TREC_COMM_LEN);
	dst[TREC_COMM_LEN - 1] = 0;
}

static void handle_trace(struct trec_session *s, const uint8_t *data, size_t len)
{
	struct trec_rec_frame frames[TREC_MAX_FRAMES];
	const struct trec_trace *t = (const void *)data;
	const struct trec_kstack *k = NULL;
	struct trec_sample smp = { 0 };
	struct trec_writer *w;
	uint32_t n;
	int err;

	if (len < TREC_TRACE_HEADER_SIZE || t->num_frames > TREC_MAX_FRAMES ||
	    len < TREC_TRACE_HEADER_SIZE + t->num_frames * sizeof(struct trec_frame)) {
		trecord_count(&s->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
	n = t->num_frames;
	for (uint32_t i = 0; i < n; i++)
		frames[i] = (struct trec_rec_frame){
			.file_id = t->frames[i].file_id,
			.addr = t->frames[i].addr_or_line,
			.kind = t->frames[i].kind,
			.flags = t->frames[i].flags,
		};
	/* A kernel stack the stack map could not take comes inline, first. */
	uint32_t nk = 0;

	while (nk < n && frames[nk].kind == TREC_FRAME_KERNEL) {
		trec_ksym_subset_add(&s->ksyms_used, &s->ksyms, frames[nk].addr,
				     frames[nk].flags & TREC_FRAME_F_RETURN_ADDRESS);
		nk++;
	}
	if (n && (frames[n - 1].flags & TREC_FRAME_F_ERROR)) {
		if (frames[n - 1].addr == TREC_ERR_NO_PID_INFO)
			trecord_count(&s->cnt, TRECORD_METRIC_SAMPLES_UNKNOWN_PID, 1);
		else if (frames[n - 1].addr == TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION)
			trecord_count(&s->cnt, TRECORD_METRIC_SAMPLES_UNKNOWN_PC, 1);
	}
	if (t->kernel_stack_id >= 0)
		k = kernel_stack(s, t->kernel_stack_id);

	smp.time_ns = t->ktime_ns;
	smp.pid = t->pid;
	smp.tid = t->tid;
	smp.cpu = t->cpu;
	smp.flags = t->flags;
	smp.weight = 1;
	copy_comm(smp.comm, t->comm);
	smp.num_user_frames = n - nk;
	smp.user_frames = frames + nk;
	if (k) {
		smp.num_kernel_frames = k->num;
		smp.kernel_frames = k->frames;
	} else if (nk) {
		smp.num_kernel_frames = nk;
		smp.kernel_frames = frames;
	}
	for (uint32_t i = 0; i < n && s->touched; i++)
		trec_touched_frame(s->touched, t->pid, &frames[i]);
	trec_jit_on_frames(s->jit, t->pid, t->ktime_ns, frames + nk, n - nk);
	if (!trec_u64map_get(&s->seen_pids, t->pid))
		trec_u64map_put(&s->seen_pids, t->pid, (void *)1, &err);

	w = trec_output_lock(&s->out);
	if (w && trec_output_unlock(&s->out, trec_write_sample(w, &smp)) >= 0)
		trecord_count(&s->cnt, TRECORD_METRIC_SAMPLES_WRITTEN, 1);
	/* Describe the sample's new Python code objects while they are live. */
	trec_py_sync_trace(s->py, t->pid, t->frames, n);
}

static void handle_pid_event(struct trec_session *s, const uint8_t *data, size_t len)
{
	const struct trec_pid_event_msg *m = (const void *)data;
	struct trec_pid_event ev = { 0 };
	char filename[TREC_PID_EV_FILENAME_LEN];
	struct trec_writer *w;

	if (len < sizeof(*m) || m->type < TREC_PID_EV_FORK || m->type > TREC_PID_EV_MMAP) {
		trecord_count(&s->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
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

	w = trec_output_lock(&s->out);
	if (w && trec_output_unlock(&s->out, trec_write_pid_event(w, &ev)) >= 0)
		trecord_count(&s->cnt, TRECORD_METRIC_PID_EVENTS_WRITTEN, 1);

	/* Python code objects of the old image are gone; samples after this
	 * event are of the new one (or none). */
	if (m->type == TREC_PID_EV_EXEC)
		trec_py_sync_exec(s->py, m->pid);
	else if (m->type == TREC_PID_EV_EXIT)
		trec_py_sync_remove(s->py, m->pid);
}

#define KSYMS_INTERVAL_NS 1000000000ULL

/*
 * Rewrites the KSYMS record when stacks used new kernel symbols: all used
 * so far, so the newest record is complete by itself, and at most once a
 * second, so a killed recording still names what its chunks contain.
 */
static void write_ksyms(struct trec_session *s, bool final)
{
	struct trec_ksyms rec = { 0 };
	struct trec_writer *w;
	struct trec_ksym *list;
	uint64_t now = trec_now_ns();

	if (s->ksyms_used.num_used == s->ksyms_used.num_written ||
	    (!final && now - s->ksyms_written_ns < KSYMS_INTERVAL_NS))
		return;
	list = trec_ksym_subset_list(&s->ksyms_used, &s->ksyms, &rec.num_syms);
	if (!list)
		return;
	/* Later records replace earlier ones in the report. */
	rec.time_ns = now > s->ksyms_time_ns ? now : s->ksyms_time_ns;
	rec.syms = list;
	w = trec_output_lock(&s->out);
	if (w)
		trec_output_unlock(&s->out, trec_write_ksyms(w, &rec));
	free(list);
	s->ksyms_used.num_written = s->ksyms_used.num_used;
	s->ksyms_written_ns = now;
}

static void *writer_main(void *arg)
{
	struct trec_session *s = arg;
	struct trec_msg *m;
	bool closed = false;

	while (!closed) {
		uint32_t type = 0;

		m = trec_msg_queue_pop(&s->queue, 200, &closed);
		write_ksyms(s, false);
		if (!m)
			continue;
		memcpy(&type, m->data, m->len >= 4 ? 4 : 0);
		if (m->len < 4)
			trecord_count(&s->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		else if (type == TREC_MSG_TRACE)
			handle_trace(s, m->data, m->len);
		else if (type == TREC_MSG_PID_EVENT)
			handle_pid_event(s, m->data, m->len);
		else
			trecord_count(&s->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		free(m);
	}
	write_ksyms(s, true);
	return NULL;
}

int trec_writer_thread_start(struct trec_session *s)
{
	if (pthread_create(&s->writer_thread, NULL, writer_main, s))
		return -EAGAIN;
	s->writer_started = true;
	return 0;
}

void trec_consumer_free(struct trec_session *s)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; trec_u64map_next(&s->kstacks, &i, &k, &v);)
		free(v);
	trec_u64map_free(&s->kstacks);
	trec_u64map_free(&s->seen_pids);
	trec_touched_free(s->touched);
	s->touched = NULL;
	if (s->rb)
		ring_buffer__free(s->rb);
	s->rb = NULL;
}
