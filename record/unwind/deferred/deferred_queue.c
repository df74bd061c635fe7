// SPDX-License-Identifier: MIT
/* Deferred samples waiting for deltas (see deferred_queue.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/io/metrics.h"
#include "record/unwind/deferred/deferred_queue.h"
#include "record/unwind/deferred/lookup_memo.h"

struct trec_deferred_entry {
	uint64_t arrived_ns;
	size_t bytes;
	/* Its last walk stopped at a file still loading (wait_file): walked
	 * again once that file's load ends, not at every pass (NO_PID samples
	 * make passes often, and other files' loads end all the time). */
	bool wait_load;
	uint64_t wait_file;
	uint32_t pid; /* the trace's, here with what each pass reads */
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
	d->pids = calloc(1, sizeof(*d->pids));
	d->memo = trec_lookup_memo_new();
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

/* A NO_PID deferral has no trie entries to name: a mappings pid means the
 * message is not what BPF sends. (Its trace may hold user frames already:
 * those of files known from other processes, deferred_types.h.) */
static bool nopid_msg_ok(const struct trec_deferred_msg *m)
{
	return !m->mappings_pid;
}

/* m's sample written as BPF would have sent it without deferring. */
static void emit_undeferred(struct trec_deferred *d, const struct trec_deferred_msg *m)
{
	struct trec_deferred_sample s = { .state = m->state, .trace = &m->trace };
	size_t len = 0;

	if (!(m->flags & TREC_DEFER_F_NO_PID)) {
		emit_unresumed(d, &m->trace);
		return;
	}
	trec_deferred_leaf_only(&s, TREC_ERR_NO_PID_INFO, &d->out, &len);
	d->emit(d->emit_arg, &d->out, len);
}

void trec_deferred_add(struct trec_deferred *d, const void *data, size_t len)
{
	const struct trec_deferred_msg *m = data;
	struct trec_deferred_entry *e;
	size_t tlen, need;
	uint32_t n;

	if (len < MSG_FIXED || m->stack_len == 0 || m->stack_len > TREC_DEFER_STACK_BYTES ||
	    m->stack_len > len - MSG_FIXED ||
	    m->trace.num_frames >= TREC_MAX_FRAMES || (m->flags & ~TREC_DEFER_F_NO_PID) ||
	    ((m->flags & TREC_DEFER_F_NO_PID) && !nopid_msg_ok(m))) {
		trecord_count(d->cnt, TRECORD_METRIC_BAD_MESSAGES, 1);
		return;
	}
	n = m->trace.num_frames;
	tlen = TREC_TRACE_HEADER_SIZE + n * sizeof(struct trec_frame);
	need = sizeof(*e) + m->stack_len + tlen;
	if (d->n >= d->max_pending || d->bytes + need > TREC_DEFERRED_MAX_BYTES ||
	    ((m->flags & TREC_DEFER_F_NO_PID) && !d->pids) ||
	    TREC_GROW(d->v, d->cap, d->n + 1, 64) || !(e = malloc(need))) {
		trecord_count(d->cnt, TRECORD_METRIC_DEFERRED_DROPPED, 1);
		emit_undeferred(d, m);
		return;
	}
	e->bytes = need;
	e->wait_load = false;
	e->wait_file = 0;
	e->pid = m->trace.pid;
	e->s.mappings_pid = m->mappings_pid;
	e->s.flags = m->flags;
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
	d->nopid += !!(e->s.flags & TREC_DEFER_F_NO_PID);
	atomic_store(&d->waiting, d->n);
}

/* Between passes: a failed walk costs a few map lookups per sample. */
#define POLL_INTERVAL_NS 5000000ULL

/* What becomes of a pending sample in this pass. */
enum outcome { KEEP, RESUMED, EXPIRED, GONE, STALE };

/* A NO_PID sample's pid is not synced (yet). */
static enum outcome unsynced(struct trec_deferred *d, const struct trec_deferred_entry *e,
			     bool expired)
{
	uint32_t pid = e->pid;

	if (trec_deferred_pids_replaced_after(d->pids, pid, e->arrived_ns))
		return STALE;
	if (trec_deferred_pids_gone_after(d->pids, pid, e->arrived_ns))
		return GONE;
	return expired ? EXPIRED : KEEP;
}

/* A NO_PID walk (in d->out) that met a pc the trie does not hold, with
 * maps read before the sample (a library ld.so mapped since): a newer read
 * will come (the process's unknown pcs ask for one), unless it is gone. */
static bool misses_mapping(struct trec_deferred *d, const struct trec_deferred_entry *e)
{
	uint32_t pid = e->pid, n = d->out.num_frames;

	return n && d->out.frames[n - 1].addr_or_line == TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION &&
	       (d->out.frames[n - 1].flags & TREC_FRAME_F_ERROR) &&
	       !trec_deferred_pids_synced_after(d->pids, pid, e->arrived_ns) &&
	       !trec_deferred_pids_gone_after(d->pids, pid, e->arrived_ns);
}

/* Pids found without their marker earlier in a pass: one lookup per pid
 * and pass, however many of its samples wait (direct-mapped by pid; a
 * collision only costs a lookup). */
#define UNSYNCED_SLOTS 256

static bool known_unsynced(const uint32_t *unsynced_pids, uint32_t pid)
{
	return pid && unsynced_pids[pid % UNSYNCED_SLOTS] == pid;
}

/* Walks e on; d->out gets the trace unless KEEP. unsynced_pids: the
 * pass's pids found without their marker so far. */
static enum outcome walk_entry(struct trec_deferred *d, struct trec_deferred_entry *e,
			       bool expired, bool final, uint32_t *unsynced_pids, size_t *len)
{
	bool nopid = e->s.flags & TREC_DEFER_F_NO_PID;
	uint32_t pid = e->pid;
	enum trec_deferred_walk_result r = TREC_DWALK_UNSYNCED;
	enum outcome o;

	if (!nopid || !known_unsynced(unsynced_pids, pid))
		r = trec_deferred_walk(&d->fds, d->memo, &e->s, expired, &d->out, len,
				       &e->wait_file);
	if (r == TREC_DWALK_WAIT && final)
		r = trec_deferred_walk(&d->fds, d->memo, &e->s, expired = true, &d->out, len,
				       NULL);
	e->wait_load = r == TREC_DWALK_WAIT;
	if (r == TREC_DWALK_UNSYNCED) {
		unsynced_pids[pid % UNSYNCED_SLOTS] = pid;
		o = unsynced(d, e, expired || final);
	} else if (nopid && trec_deferred_pids_replaced_after(d->pids, pid, e->arrived_ns)) {
		/* Checked after the marker: a new image's marker follows its
		 * exec's note. */
		o = STALE;
	} else if (nopid && r == TREC_DWALK_DONE && !expired && !final && misses_mapping(d, e)) {
		return KEEP;
	} else {
		return r == TREC_DWALK_WAIT ? KEEP : expired ? EXPIRED : RESUMED;
	}
	/* Not walked: as BPF would have sent it. */
	if (o != KEEP)
		trec_deferred_leaf_only(&e->s, TREC_ERR_NO_PID_INFO, &d->out, len);
	return o;
}

static const int outcome_metric[] = {
	[RESUMED] = TRECORD_METRIC_DEFERRED_RESUMED,
	[EXPIRED] = TRECORD_METRIC_DEFERRED_EXPIRED,
	[GONE] = TRECORD_METRIC_DEFERRED_NO_PID_GONE,
	[STALE] = TRECORD_METRIC_DEFERRED_NO_PID_STALE,
};

void trec_deferred_poll(struct trec_deferred *d, uint64_t now_ns, bool final)
{
	uint64_t loads = d->loads_finished ? atomic_load(d->loads_finished) : 0;
	uint32_t unsynced_pids[UNSYNCED_SLOTS] = { 0 };
	size_t kept = 0;

	if (!d->n || (!final && now_ns - d->tried_ns < POLL_INTERVAL_NS))
		return;
	if (!final && d->loads_finished && loads == d->tried_loads && !d->nopid &&
	    now_ns <= d->v[0]->arrived_ns + TREC_DEFERRED_MAX_WAIT_NS)
		return;
	bool new_loads = !d->loads_finished || loads != d->tried_loads;

	d->tried_ns = now_ns;
	d->tried_loads = loads;
	trec_lookup_memo_new_pass(d->memo);
	for (size_t i = 0; i < d->n; i++) {
		struct trec_deferred_entry *e = d->v[i];
		bool expired = now_ns > e->arrived_ns + TREC_DEFERRED_MAX_WAIT_NS;
		size_t len = 0;
		enum outcome o = KEEP;

		/* A sample waiting for a file: walked again once that file's
		 * load is over (one defer_files lookup, not a walk up to it). */
		if (final || expired || !e->wait_load ||
		    (new_loads && !trec_deferred_file_loading(&d->fds, e->wait_file)))
			o = walk_entry(d, e, expired, final, unsynced_pids, &len);
		if (o == KEEP) {
			d->v[kept++] = e;
			continue;
		}
		trecord_count(d->cnt, outcome_metric[o], 1);
		d->emit(d->emit_arg, &d->out, len);
		d->nopid -= !!(e->s.flags & TREC_DEFER_F_NO_PID);
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
	free(d->pids);
	trec_lookup_memo_free(d->memo);
	d->v = NULL;
	d->pids = NULL;
	d->memo = NULL;
	d->n = d->cap = d->bytes = d->nopid = 0;
}
