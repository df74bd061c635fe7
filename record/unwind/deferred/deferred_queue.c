// SPDX-License-Identifier: MIT
/* Deferred samples waiting for deltas (see deferred_queue.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/io/metrics.h"
#include "record/unwind/deferred/deferred_queue.h"

struct trec_deferred_entry {
	uint64_t arrived_ns;
	size_t bytes;
	struct trec_deferred_sample s;
	/* stack_len bytes of stack, then the trace header and frames */
	uint8_t data[];
};

void trec_deferred_init(struct trec_deferred *d, const struct trec_deferred_walk_fds *fds,
			const atomic_uint_fast64_t *loads_finished, struct trecord_counters *cnt,
			trec_deferred_emit_fn emit, void *emit_arg)
{
	memset(d, 0, sizeof(*d));
	d->fds = *fds;
	d->loads_finished = loads_finished;
	d->max_pending = TREC_DEFERRED_MAX_PENDING;
	if (getenv("TREC_DEFER_MAX_PENDING")) {
		unsigned long v = strtoul(getenv("TREC_DEFER_MAX_PENDING"), NULL, 10);

		if (v < d->max_pending)
			d->max_pending = v;
	}
	d->cnt = cnt;
	d->emit = emit;
	d->emit_arg = emit_arg;
}

/* The trace as BPF left it: its frames, then NO_PAGE_INFO (a sample that
 * could not wait is not lost). */
static void emit_unresumed(struct trec_deferred *d, const struct trec_trace *t)
{
	uint32_t n = t->num_frames;

	memcpy(&d->out, t, TREC_TRACE_HEADER_SIZE + n * sizeof(struct trec_frame));
	d->out.frames[n] = (struct trec_frame){
		.addr_or_line = TREC_ERR_NATIVE_NO_PAGE_INFO,
		.kind = TREC_FRAME_UNKNOWN,
		.flags = TREC_FRAME_F_ERROR,
	};
	d->out.num_frames = n + 1;
	d->emit(d->emit_arg, &d->out, TREC_TRACE_HEADER_SIZE + (n + 1) * sizeof(struct trec_frame));
}

#define MSG_FIXED offsetof(struct trec_deferred_msg, stack)

size_t trec_deferred_msg_used(const void *data, size_t len)
{
	const struct trec_deferred_msg *m = data;

	if (len < MSG_FIXED || m->stack_len > len - MSG_FIXED)
		return len;
	return MSG_FIXED + m->stack_len;
}

void trec_deferred_add(struct trec_deferred *d, const void *data, size_t len)
{
	const struct trec_deferred_msg *m = data;
	struct trec_deferred_entry *e;
	size_t tlen, need;
	uint32_t n;

	if (len < MSG_FIXED || m->stack_len == 0 || m->stack_len > TREC_DEFER_STACK_BYTES ||
	    m->stack_len > len - MSG_FIXED ||
	    m->trace.num_frames >= TREC_MAX_FRAMES) {
		trecord_count(d->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
	n = m->trace.num_frames;
	tlen = TREC_TRACE_HEADER_SIZE + n * sizeof(struct trec_frame);
	need = sizeof(*e) + m->stack_len + tlen;
	if (d->n >= d->max_pending || d->bytes + need > TREC_DEFERRED_MAX_BYTES ||
	    TREC_GROW(d->v, d->cap, d->n + 1, 64) || !(e = malloc(need))) {
		trecord_count(d->cnt, TRECORD_METRIC_DEFERRED_DROPPED, 1);
		emit_unresumed(d, &m->trace);
		return;
	}
	e->bytes = need;
	e->s.mappings_pid = m->mappings_pid;
	e->s.stack_len = m->stack_len;
	e->s.stack_base = m->stack_base;
	e->s.state = m->state;
	memcpy(e->data, m->stack, m->stack_len);
	memcpy(e->data + m->stack_len, &m->trace, tlen);
	e->s.stack = e->data;
	e->s.trace = (const struct trec_trace *)(e->data + m->stack_len);
	e->arrived_ns = m->trace.ktime_ns;
	d->v[d->n++] = e;
	d->bytes += need;
	atomic_store(&d->waiting, d->n);
}

/* Between passes: a failed walk costs a few map lookups per sample. */
#define POLL_INTERVAL_NS 5000000ULL

void trec_deferred_poll(struct trec_deferred *d, uint64_t now_ns, bool final)
{
	uint64_t loads = d->loads_finished ? atomic_load(d->loads_finished) : 0;
	size_t kept = 0;

	if (!d->n || (!final && now_ns - d->tried_ns < POLL_INTERVAL_NS))
		return;
	if (!final && d->loads_finished && loads == d->tried_loads &&
	    now_ns <= d->v[0]->arrived_ns + TREC_DEFERRED_MAX_WAIT_NS)
		return;
	d->tried_ns = now_ns;
	d->tried_loads = loads;
	for (size_t i = 0; i < d->n; i++) {
		struct trec_deferred_entry *e = d->v[i];
		bool expired = now_ns > e->arrived_ns + TREC_DEFERRED_MAX_WAIT_NS;
		size_t len = 0;

		if (trec_deferred_walk(&d->fds, &e->s, expired, &d->out, &len) ==
		    TREC_DWALK_WAIT) {
			if (!final) {
				d->v[kept++] = e;
				continue;
			}
			expired = true;
			trec_deferred_walk(&d->fds, &e->s, true, &d->out, &len);
		}
		trecord_count(d->cnt, expired ? TRECORD_METRIC_DEFERRED_EXPIRED
					      : TRECORD_METRIC_DEFERRED_RESUMED, 1);
		d->emit(d->emit_arg, &d->out, len);
		d->bytes -= e->bytes;
		free(e);
	}
	d->n = kept;
	atomic_store(&d->waiting, d->n);
}

void trec_deferred_free(struct trec_deferred *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	d->v = NULL;
	d->n = d->cap = d->bytes = 0;
}
