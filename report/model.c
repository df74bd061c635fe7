// SPDX-License-Identifier: MIT
/* The in-memory model of one or more recordings (see model.h). */
#include "report/model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"
#include "report/jit/jitsyms.h"
#include "upper_bound.h"

void rp_model_init(struct rp_model *m)
{
	memset(m, 0, sizeof(*m));
	rp_strtab_init(&m->strs);
}

void rp_model_free(struct rp_model *m)
{
	for (size_t i = 0; i < m->nrecs; i++) {
		struct rp_recording *r = &m->recs[i];
		free(r->meta_keys);
		free(r->meta_values);
		free(r->ksyms);
		free(r->metrics);
		rp_interp_free(&r->interp);
	}
	free(m->recs);
	trec_archive_store_free(m->archives);
	rp_jit_free(m->jit);
	free(m->files);
	trec_itab_free(&m->file_index);
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i].snaps);
	free(m->procs);
	trec_itab_free(&m->proc_index);
	free(m->maps);
	free(m->frames);
	free(m->stacks);
	trec_itab_free(&m->stack_index);
	free(m->aggs);
	trec_itab_free(&m->agg_index);
	free(m->events);
	free(m->pid_events);
	rp_strtab_free(&m->strs);
	memset(m, 0, sizeof(*m));
}

uint32_t rp_model_add_recording(struct rp_model *m, const char *path)
{
	RP_GROW(m->recs, m->caprecs, m->nrecs + 1);
	struct rp_recording *r = &m->recs[m->nrecs];
	memset(r, 0, sizeof(*r));
	r->path = rp_strtab_intern(&m->strs, path);
	r->min_ns = r->cpu_min_ns = UINT64_MAX;
	return (uint32_t)m->nrecs++;
}

void rp_model_add_meta(struct rp_model *m, uint32_t rec, const char *key, const char *value)
{
	struct rp_recording *r = &m->recs[rec];
	uint32_t k = rp_strtab_intern(&m->strs, key);
	uint32_t v = rp_strtab_intern(&m->strs, value);
	for (size_t i = 0; i < r->nmeta; i++) {
		if (r->meta_keys[i] == k) { /* a later META record refines a fact */
			r->meta_values[i] = v;
			return;
		}
	}
	if (r->nmeta >= RP_MAX_META) {
		/* trecord writes 15; a hostile file would make this scan quadratic */
		if (!r->meta_capped)
			fprintf(stderr, "treport: warning: %s: more than %u META keys; the rest "
				"ignored\n", rp_str(&m->strs, r->path), RP_MAX_META);
		r->meta_capped = true;
		return;
	}
	size_t cap = r->capmeta;
	RP_GROW(r->meta_keys, r->capmeta, r->nmeta + 1);
	RP_GROW(r->meta_values, cap, r->nmeta + 1);
	r->meta_keys[r->nmeta] = k;
	r->meta_values[r->nmeta++] = v;
}

const char *rp_model_meta(const struct rp_model *m, uint32_t rec, const char *key)
{
	const struct rp_recording *r = &m->recs[rec];
	for (size_t i = 0; i < r->nmeta; i++)
		if (!strcmp(rp_str(&m->strs, r->meta_keys[i]), key))
			return rp_str(&m->strs, r->meta_values[i]);
	return NULL;
}

uint64_t rp_model_metric(const struct rp_model *m, uint32_t rec, const char *name)
{
	const struct rp_recording *r = &m->recs[rec];
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(rp_str(&m->strs, r->metrics[i].name), name))
			return r->metrics[i].value;
	return 0;
}

/* ---- files ---------------------------------------------------------------- */

struct u64_key {
	const struct rp_model *m;
	uint64_t id;
};

static bool file_eq(const void *ctx, uint32_t idx)
{
	const struct u64_key *k = ctx;
	return k->m->files[idx].file_id == k->id;
}

const struct rp_file *rp_model_file(const struct rp_model *m, uint64_t file_id)
{
	struct u64_key k = { m, file_id };
	uint32_t i = trec_itab_find(&m->file_index, rp_hash_u64(file_id), file_eq, &k);
	return i == TREC_ITAB_NONE ? NULL : &m->files[i];
}

void rp_model_add_file(struct rp_model *m, const struct trec_file_info *f)
{
	if (rp_model_file(m, f->file_id))
		return;
	RP_GROW(m->files, m->capfiles, m->nfiles + 1);
	struct rp_file *n = &m->files[m->nfiles];
	memset(n, 0, sizeof(*n));
	n->file_id = f->file_id;
	n->path = rp_strtab_intern(&m->strs, f->path ? f->path : "");
	n->debuglink = rp_strtab_intern(&m->strs, f->debuglink ? f->debuglink : "");
	n->size = f->size;
	n->inode = f->inode;
	n->mtime_ns = f->mtime_ns;
	n->dev_major = f->dev_major;
	n->dev_minor = f->dev_minor;
	n->build_id_len = f->build_id_len <= sizeof(n->build_id) ? f->build_id_len : 0;
	if (n->build_id_len && f->build_id)
		memcpy(n->build_id, f->build_id, n->build_id_len);
	else
		n->build_id_len = 0;
	rp_itab_insert(&m->file_index, rp_hash_u64(f->file_id), (uint32_t)m->nfiles);
	m->nfiles++;
}

/* ---- processes and mappings ------------------------------------------------ */

struct proc_key {
	const struct rp_model *m;
	uint32_t rec, pid;
};

static bool proc_eq(const void *ctx, uint32_t idx)
{
	const struct proc_key *k = ctx;
	return k->m->procs[idx].pid == k->pid && k->m->procs[idx].rec == k->rec;
}

static uint64_t proc_hash(uint32_t rec, uint32_t pid)
{
	return rp_hash_u64(((uint64_t)rec << 32) | pid);
}

struct rp_process *rp_model_process(struct rp_model *m, uint32_t rec, uint32_t pid, bool create)
{
	struct proc_key k = { m, rec, pid };
	uint32_t i = trec_itab_find(&m->proc_index, proc_hash(rec, pid), proc_eq, &k);
	if (i != TREC_ITAB_NONE)
		return &m->procs[i];
	if (!create)
		return NULL;
	RP_GROW(m->procs, m->capprocs, m->nprocs + 1);
	struct rp_process *p = &m->procs[m->nprocs];
	memset(p, 0, sizeof(*p));
	p->rec = rec;
	p->pid = pid;
	rp_itab_insert(&m->proc_index, proc_hash(rec, pid), (uint32_t)m->nprocs);
	m->nprocs++;
	return p;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct rp_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

void rp_model_add_snapshot(struct rp_model *m, uint32_t rec, const struct trec_mapping_snapshot *s)
{
	struct rp_process *p = rp_model_process(m, rec, s->pid, true);
	size_t first = m->nmaps;

	RP_GROW(m->maps, m->capmaps, m->nmaps + s->num_mappings);
	for (uint32_t i = 0; i < s->num_mappings; i++) {
		const struct trec_mapping *in = &s->mappings[i];
		if (in->end <= in->start) /* hostile or empty: cannot hold an address */
			continue;
		struct rp_mapping *o = &m->maps[m->nmaps++];
		o->start = in->start;
		o->end = in->end;
		o->file_offset = in->file_offset;
		o->file_id = in->file_id;
		o->bias = in->bias;
		o->prot = in->prot;
		o->path = rp_strtab_intern(&m->strs, in->path ? in->path : "");
	}
	size_t num = m->nmaps - first;
	if (num > 1) /* (none: maps may still be NULL, which qsort must not get) */
		qsort(m->maps + first, num, sizeof(*m->maps), cmp_mapping);
	/* Overlaps are invalid; keep the first of overlapping ranges so that a
	 * binary search stays well defined. */
	size_t w = first;
	for (size_t i = first; i < m->nmaps; i++) {
		if (w > first && m->maps[i].start < m->maps[w - 1].end)
			continue;
		m->maps[w++] = m->maps[i];
	}
	m->nmaps = w;

	/* Snapshots are normally in time order; if not, they are sorted at
	 * the first lookup (sorting as they come is quadratic). */
	RP_GROW(p->snaps, p->capsnaps, p->nsnaps + 1);
	if (p->nsnaps && p->snaps[p->nsnaps - 1].time_ns > s->time_ns)
		p->unsorted = true;
	p->snaps[p->nsnaps].time_ns = s->time_ns;
	p->snaps[p->nsnaps].first = (uint32_t)first;
	p->snaps[p->nsnaps].num = (uint32_t)(w - first);
	p->nsnaps++;
}

/* By time; of equal times the one added first (first grows as they come). */
static int cmp_snapshot(const void *a, const void *b)
{
	const struct rp_snapshot *x = a, *y = b;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static const struct rp_mapping *snapshot_find(const struct rp_model *m,
					       const struct rp_snapshot *s, uint64_t addr)
{
	const struct rp_mapping *maps = m->maps + s->first;
	size_t lo = TREC_UPPER_BOUND(maps, s->num, start, addr);

	return lo && addr < maps[lo - 1].end ? &maps[lo - 1] : NULL;
}

const struct rp_mapping *rp_model_find_mapping(const struct rp_model *m, uint32_t rec,
					       uint32_t pid, uint64_t time_ns, uint64_t addr)
{
	struct rp_process *p = rp_model_process((struct rp_model *)m, rec, pid, false);
	const struct rp_mapping *mp;

	if (!p || !p->nsnaps)
		return NULL;
	if (p->unsorted) {
		qsort(p->snaps, p->nsnaps, sizeof(*p->snaps), cmp_snapshot);
		p->unsorted = false;
	}
	/* the last snapshot at or before time_ns; the first one if all are later */
	size_t at = TREC_UPPER_BOUND(p->snaps, p->nsnaps, time_ns, time_ns);
	at = at ? at - 1 : 0;
	if ((mp = snapshot_find(m, &p->snaps[at], addr)))
		return mp;
	/* Not there: a sample taken before trecord synced the mapping (a
	 * library just loaded) is in a later snapshot; failing that, the
	 * nearest earlier one; at most RP_SNAPSHOT_SCAN each way (a pc no
	 * mapping holds would otherwise cost every snapshot of the process). */
	for (size_t i = at + 1; i < p->nsnaps && i <= at + RP_SNAPSHOT_SCAN; i++)
		if ((mp = snapshot_find(m, &p->snaps[i], addr)))
			return mp;
	for (size_t i = at; i-- > 0 && at - i <= RP_SNAPSHOT_SCAN;)
		if ((mp = snapshot_find(m, &p->snaps[i], addr)))
			return mp;
	return NULL;
}

const struct rp_mapping *rp_model_file_mapping(const struct rp_model *m, uint64_t file_id)
{
	const struct rp_mapping *any = NULL;
	for (size_t i = 0; i < m->nmaps; i++) {
		if (m->maps[i].file_id != file_id)
			continue;
		if (m->maps[i].prot & 4) /* PROT_EXEC: the text the frames point into */
			return &m->maps[i];
		if (!any)
			any = &m->maps[i];
	}
	return any;
}

/* ---- stacks --------------------------------------------------------------- */

struct stack_key {
	const struct rp_model *m;
	const struct rp_frame *frames;
	uint32_t nkernel, nuser;
};

static bool frame_same(const struct rp_frame *a, const struct rp_frame *b)
{
	return a->file_id == b->file_id && a->addr == b->addr && a->kind == b->kind &&
	       a->flags == b->flags;
}

static bool stack_eq(const void *ctx, uint32_t idx)
{
	const struct stack_key *k = ctx;
	const struct rp_stack *s = &k->m->stacks[idx];
	if (s->nkernel != k->nkernel || s->nuser != k->nuser)
		return false;
	const struct rp_frame *f = k->m->frames + s->first;
	for (uint32_t i = 0; i < s->nkernel + s->nuser; i++)
		if (!frame_same(&f[i], &k->frames[i]))
			return false;
	return true;
}

/* One multiply per frame word: stacks are hashed once per sample read. */
static uint64_t stack_hash(const struct rp_frame *f, uint32_t nkernel, uint32_t nuser)
{
	uint64_t h = ((uint64_t)nkernel << 32) | nuser;
	for (uint32_t i = 0; i < nkernel + nuser; i++) {
		uint64_t x = f[i].addr ^ (f[i].file_id * 0x9e3779b97f4a7c15ULL) ^
			     ((uint64_t)f[i].kind << 56) ^ ((uint64_t)f[i].flags << 48);
		h = (h ^ x) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return rp_hash_u64(h);
}

uint32_t rp_model_intern_stack(struct rp_model *m, const struct rp_frame *frames,
			       uint32_t nkernel, uint32_t nuser)
{
	struct stack_key k = { m, frames, nkernel, nuser };
	uint64_t h = stack_hash(frames, nkernel, nuser);
	uint32_t id = trec_itab_find(&m->stack_index, h, stack_eq, &k);
	if (id != TREC_ITAB_NONE)
		return id;
	uint32_t n = nkernel + nuser;
	RP_GROW(m->frames, m->capframes, m->nframes + n);
	memcpy(m->frames + m->nframes, frames, n * sizeof(*frames));
	RP_GROW(m->stacks, m->capstacks, m->nstacks + 1);
	id = (uint32_t)m->nstacks++;
	m->stacks[id].first = (uint32_t)m->nframes;
	m->stacks[id].nkernel = nkernel;
	m->stacks[id].nuser = nuser;
	m->nframes += n;
	rp_itab_insert(&m->stack_index, h, id);
	return id;
}

/* ---- samples --------------------------------------------------------------- */

struct agg_key {
	const struct rp_model *m;
	struct rp_agg a;
};

static bool agg_eq(const void *ctx, uint32_t idx)
{
	const struct agg_key *k = ctx;
	const struct rp_agg *a = &k->m->aggs[idx];
	return a->stack == k->a.stack && a->tid == k->a.tid && a->pid == k->a.pid &&
	       a->comm == k->a.comm && a->rec == k->a.rec;
}

void rp_model_add_sample(struct rp_model *m, uint32_t rec, uint32_t pid, uint32_t tid,
			 const char *comm, uint32_t stack, uint64_t time_ns, uint32_t cpu,
			 uint64_t weight, bool offcpu)
{
	struct agg_key k = { m, { .rec = rec, .pid = pid, .tid = tid, .stack = stack } };
	k.a.comm = rp_strtab_intern(&m->strs, comm);
	uint64_t h = rp_hash_u64(((uint64_t)rec << 32 | pid) ^ rp_hash_u64((uint64_t)tid << 32 | k.a.comm) ^
				 rp_hash_u64(stack));
	uint32_t id = trec_itab_find(&m->agg_index, h, agg_eq, &k);
	if (id == TREC_ITAB_NONE) {
		RP_GROW(m->aggs, m->capaggs, m->naggs + 1);
		id = (uint32_t)m->naggs++;
		m->aggs[id] = k.a;
		m->aggs[id].first_ns = time_ns;
		rp_itab_insert(&m->agg_index, h, id);
	}
	struct rp_agg *a = &m->aggs[id];
	/* weights are hostile: saturate instead of wrapping */
	a->count = rp_sat_add(a->count, weight);
	a->hits++;
	m->total_samples = rp_sat_add(m->total_samples, weight);
	if (time_ns < a->first_ns)
		a->first_ns = time_ns;
	if (m->keep_events) {
		RP_GROW(m->events, m->capevents, m->nevents + 1);
		struct rp_event *e = &m->events[m->nevents++];
		e->time_ns = time_ns;
		e->weight = weight;
		e->agg = id;
		e->cpu = cpu < 0x7fffffff ? cpu : 0x7fffffff;
		e->offcpu = offcpu;
	}
}

uint64_t rp_recording_start(const struct rp_recording *r)
{
	if (r->have_summary && r->summary.start_ns)
		return r->summary.start_ns;
	return r->min_ns == UINT64_MAX ? 0 : r->min_ns;
}

/* The part of e inside [lo, hi] (relative to start): a sample is in or
 * out; a wait keeps its overlap, beginning no earlier than lo. */
static bool clip_event(struct rp_event *e, uint64_t start, uint64_t lo, uint64_t hi)
{
	uint64_t rel = e->time_ns >= start ? e->time_ns - start : 0;

	if (!e->offcpu)
		return rel >= lo && rel <= hi;
	uint64_t end = rp_sat_add(rel, e->weight);
	uint64_t from = rel > lo ? rel : lo, to = end < hi ? end : hi;
	if (to < from || (to == from && e->weight))
		return false;
	e->weight = to - from;
	e->time_ns = rp_sat_add(start, from);
	return true;
}

void rp_model_filter_time(struct rp_model *m, uint64_t start_rel_ns, uint64_t end_rel_ns,
			  bool wall)
{
	for (size_t i = 0; i < m->naggs; i++)
		m->aggs[i].count = m->aggs[i].hits = 0;
	for (size_t i = 0; i < m->nrecs; i++)
		m->recs[i].samples_kept = m->recs[i].offcpu_kept = 0;
	m->total_samples = 0;
	size_t w = 0;
	for (size_t i = 0; i < m->nevents; i++) {
		struct rp_event *e = &m->events[i];
		struct rp_agg *a = &m->aggs[e->agg];
		struct rp_recording *r = &m->recs[a->rec];
		if (!clip_event(e, rp_recording_start(r), start_rel_ns, end_rel_ns))
			continue;
		a->count = rp_sat_add(a->count, e->weight);
		a->hits++;
		m->total_samples = rp_sat_add(m->total_samples, e->weight);
		if (e->offcpu)
			r->offcpu_kept++;
		else
			r->samples_kept = rp_sat_add(r->samples_kept, wall && r->period_ns
						     ? e->weight / r->period_ns : e->weight);
		m->events[w++] = *e;
	}
	m->nevents = w;
}

/* By time, ties in file order (qsort is not stable). */
static int cmp_event_time(const void *a, const void *b, void *ctx)
{
	const struct rp_event *ev = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (ev[i].time_ns != ev[j].time_ns)
		return ev[i].time_ns < ev[j].time_ns ? -1 : 1;
	return (i > j) - (i < j);
}

uint32_t *rp_model_events_by_time(const struct rp_model *m)
{
	uint32_t *order = xmalloc((m->nevents ? m->nevents : 1) * sizeof(*order));

	for (size_t i = 0; i < m->nevents; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, m->nevents, sizeof(*order), cmp_event_time, m->events);
	return order;
}
