// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "format/trec_perlcode.h"
#include "format/trec_phpcode.h"
#include "format/trec_rbcode.h"
#include "record/flight/record_copy.h"
#include "record/flight/state.h"

/* What the first pass learns: which records are the newest of their kind. */
struct plan {
	uint64_t n;               /* records seen, old state then segment */
	uint64_t last_ksyms, last_metrics; /* ordinal + 1 */
	struct trec_u64map last_map;       /* pid -> ordinal + 1 of its newest MAPPINGS */
	struct trec_u64map map_time;       /* pid -> its time_ns + 1 */
	struct trec_u64map last_jit;       /* pid << 2 | source -> ordinal + 1 of the newest JITSYMS */
	struct trec_u64map files;          /* file ids written (second pass) */
	bool meta;
	uint64_t cut_ns;
	const struct trec_u64map *exits;
};

static uint32_t record_pid(const struct trec_record *r)
{
	const struct trec_blob *b = &r->u.blob;

	switch (r->type) {
	case TREC_REC_MAPPINGS:
		return r->u.mappings.pid;
	case TREC_REC_JITSYMS:
		return r->u.jitsyms.pid;
	case TREC_REC_PYCODE:
	case TREC_REC_INTERP_CODE:
		/* FORMAT.md §11, §12: the pid leads every payload trecord writes
		 * (an unknown subtype could be laid out otherwise: kept whole) */
		if (r->type == TREC_REC_INTERP_CODE && b->subtype != TREC_PERLCODE_SUBTYPE &&
		    b->subtype != TREC_RBCODE_SUBTYPE && b->subtype != TREC_PHPCODE_SUBTYPE)
			return 0;
		return b->len >= 4 ? (uint32_t)b->data[0] | (uint32_t)b->data[1] << 8 |
					     (uint32_t)b->data[2] << 16 | (uint32_t)b->data[3] << 24
				   : 0;
	default:
		return 0;
	}
}

static uint64_t jit_key(const struct trec_record *r)
{
	return (uint64_t)r->u.jitsyms.pid << 2 | (r->u.jitsyms.source & 3);
}

/* The process that owned the record exited before the cut, and its pid
 * has no newer mappings (a new process would have). */
static bool gone(const struct plan *p, const struct trec_record *r)
{
	uint32_t pid = record_pid(r);
	uint64_t exit_ns = (uint64_t)(uintptr_t)trec_u64map_get(p->exits, pid);
	uint64_t t = (uint64_t)(uintptr_t)trec_u64map_get(&p->map_time, pid);

	if (!pid || !exit_ns || exit_ns >= p->cut_ns)
		return false;
	if (r->type == TREC_REC_JITSYMS)
		return r->u.jitsyms.time_ns <= exit_ns;
	return !t || t - 1 <= exit_ns;
}

static int note(struct plan *p, struct trec_u64map *exits, const struct trec_record *r)
{
	int err = 0;

	p->n++;
	switch (r->type) {
	case TREC_REC_MAPPINGS:
		trec_u64map_put(&p->last_map, r->u.mappings.pid, (void *)(uintptr_t)p->n, &err);
		if (!err)
			trec_u64map_put(&p->map_time, r->u.mappings.pid,
					(void *)(uintptr_t)(r->u.mappings.time_ns + 1), &err);
		break;
	case TREC_REC_JITSYMS:
		/* each read names every pc sampled so far: the newest is complete */
		trec_u64map_put(&p->last_jit, jit_key(r), (void *)(uintptr_t)p->n, &err);
		break;
	case TREC_REC_KSYMS:
		p->last_ksyms = p->n;
		break;
	case TREC_REC_METRICS:
		p->last_metrics = p->n;
		break;
	case TREC_REC_PID_EVENT:
		if (r->u.pid_event.kind == TREC_PEV_EXIT && r->u.pid_event.time_ns)
			trec_u64map_put(exits, r->u.pid_event.pid,
					(void *)(uintptr_t)r->u.pid_event.time_ns, &err);
		break;
	default:
		break;
	}
	return err;
}

static bool keep(struct plan *p, const struct trec_record *r, int *err)
{
	p->n++;
	switch (r->type) {
	case TREC_REC_META:
		if (p->meta)
			return false;
		p->meta = true;
		return true;
	case TREC_REC_FILE:
		if (trec_u64map_get(&p->files, r->u.file.file_id))
			return false;
		trec_u64map_put(&p->files, r->u.file.file_id, (void *)1, err);
		return true;
	case TREC_REC_MAPPINGS:
		return (uint64_t)(uintptr_t)trec_u64map_get(&p->last_map, r->u.mappings.pid) == p->n &&
		       !gone(p, r);
	case TREC_REC_KSYMS:
		return p->n == p->last_ksyms;
	case TREC_REC_METRICS:
		return p->n == p->last_metrics;
	case TREC_REC_PYCODE:
	case TREC_REC_INTERP_CODE:
		return !gone(p, r);
	case TREC_REC_JITSYMS:
		return (uint64_t)(uintptr_t)trec_u64map_get(&p->last_jit, jit_key(r)) == p->n &&
		       !gone(p, r);
	case TREC_REC_BLOB:
		return true;
	default:
		return false; /* SAMPLE, PID_EVENT, SYMTAB, SUMMARY */
	}
}

/* Runs fn over the records of one mapped memfile. */
static int each(const struct trec_memfile *m, int (*fn)(void *, const struct trec_record *),
		void *ctx)
{
	struct trec_reader *r;
	struct trec_record rec;
	int rc, err = 0;

	if (m->fd < 0)
		return 0;
	r = trec_memfile_reader(m);
	if (!r)
		return -EBADMSG;
	while (!err && (rc = trec_reader_next(r, &rec)) > 0)
		err = fn(ctx, &rec);
	if (!err && rc < 0)
		err = -EBADMSG;
	trec_reader_close(r);
	return err;
}

struct pass {
	struct plan *p;
	struct trec_u64map *exits;
	struct trec_writer *w;     /* second pass */
	trec_flight_sink_fn sink;  /* first pass, segment only */
	void *sink_ctx;
};

static int pass1(void *ctx, const struct trec_record *r)
{
	struct pass *ps = ctx;
	int err = ps->sink ? ps->sink(ps->sink_ctx, r) : 0;

	return err ? err : note(ps->p, ps->exits, r);
}

static int pass2(void *ctx, const struct trec_record *r)
{
	struct pass *ps = ctx;
	int err = 0;

	if (!keep(ps->p, r, &err))
		return err;
	err = trec_record_copy(ps->w, r);
	return err == -EINVAL ? 0 : err; /* a record over a limit stays out */
}

static void plan_free(struct plan *p)
{
	trec_u64map_free(&p->last_map);
	trec_u64map_free(&p->map_time);
	trec_u64map_free(&p->last_jit);
	trec_u64map_free(&p->files);
}

/* Exits applied now are done with. */
static void drop_applied(struct trec_u64map *exits, uint64_t cut_ns)
{
	uint64_t pids[256], pid;
	size_t n;
	void *v;

	do {
		n = 0;
		for (size_t i = 0; n < 256 && trec_u64map_next(exits, &i, &pid, &v);)
			if ((uint64_t)(uintptr_t)v < cut_ns)
				pids[n++] = pid;
		for (size_t i = 0; i < n; i++)
			trec_u64map_del(exits, pids[i]);
	} while (n == 256);
}

int trec_flight_state_absorb(struct trec_flight_state *st, const struct trec_memfile *seg,
			     uint64_t cut_ns, trec_flight_sink_fn sink, void *ctx)
{
	struct plan p = { .cut_ns = cut_ns, .exits = &st->exits };
	struct pass ps = { .p = &p, .exits = &st->exits, .sink = sink, .sink_ctx = ctx };
	struct trec_memfile next;
	int err;

	err = each(&st->mf, pass1, &(struct pass){ .p = &p, .exits = &st->exits });
	if (!err)
		err = each(seg, pass1, &ps);
	if (!err)
		err = trec_memfile_create(&next, "trec-state");
	if (err) {
		plan_free(&p);
		return err;
	}
	p.n = 0;
	ps.w = next.w;
	ps.sink = NULL;
	err = each(&st->mf, pass2, &ps);
	if (!err)
		err = each(seg, pass2, &ps);
	if (!err)
		err = trec_memfile_seal(&next);
	if (!err)
		err = trec_memfile_map(&next);
	plan_free(&p);
	if (err) {
		trec_memfile_free(&next);
		return err;
	}
	trec_memfile_free(&st->mf);
	st->mf = next;
	drop_applied(&st->exits, cut_ns);
	return 0;
}

int trec_flight_state_each(const struct trec_flight_state *st, trec_flight_sink_fn fn,
			   void *ctx)
{
	return each(&st->mf, fn, ctx);
}

uint64_t trec_flight_state_bytes(const struct trec_flight_state *st)
{
	return st->mf.fd >= 0 ? trec_memfile_bytes(&st->mf) : 0;
}

void trec_flight_state_free(struct trec_flight_state *st)
{
	trec_memfile_free(&st->mf);
	trec_u64map_free(&st->exits);
}
