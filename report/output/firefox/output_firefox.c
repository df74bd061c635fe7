// SPDX-License-Identifier: MIT
/*
 * treport --firefox: the Firefox Profiler's processed profile format,
 * version 70 (PROCESSED_PROFILE_VERSION of firefox-devtools/profiler in
 * August 2026: src/types/profile.ts, src/profile-logic/data-structures.ts,
 * docs-developer/CHANGELOG-formats.md). The profiler upgrades older
 * versions when it loads a file and refuses newer ones.
 *
 * One thread per (recording, pid, tid), named by its command, with the
 * process name and pid; samples with their times (ms from meta.startTime)
 * and weights; one shared stack, frame, func, resource and source table.
 * A frame per symbol and inline depth (inlined functions are frames at
 * the same address, inlineDepth 0 the outermost), so the stacks are
 * --folded's: the same frames in the same order, unresolved addresses as
 * [dso] (the frame keeps its address and library). Categories: User,
 * Kernel, Python, JIT (code outside any recorded file), Error (unwinding
 * stopped). Markers: fork, exec and exit, in the process's main thread.
 */
#include "report/output/output.h"
#include "trec_types.h"

#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "format/containers/u64map.h"
#include "report/output/firefox/firefox_profile.h"
#include "trec_format.h"

uint32_t ff_str(struct ff *f, uint32_t model_id)
{
	return rp_keytab_get(&f->strs, model_id, 0, 0, NULL);
}

uint32_t ff_cstr(struct ff *f, const char *s)
{
	return ff_str(f, rp_strtab_intern(&f->m->strs, s));
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* A sample time from meta.startTime, in ns: recordings are placed by their
 * creation (CLOCK_REALTIME), samples by their CLOCK_MONOTONIC time. */
uint64_t ff_rel_ns(const struct ff *f, uint32_t rec, uint64_t t)
{
	const struct rp_recording *rr = &f->m->recs[rec];
	uint64_t start = rp_recording_start(rr), created = rr->hdr.creation_time_ns;
	uint64_t off = created > f->zero_ns ? created - f->zero_ns : 0;
	return off + (t > start ? t - start : 0);
}

static uint32_t resource(struct ff *f, uint64_t kind, uint64_t key, const char *name, uint8_t type)
{
	bool added;
	uint32_t i = rp_keytab_get(&f->resources, kind, key, 0, &added);
	if (added) {
		RP_GROW(f->res_name, f->capres_name, (size_t)i + 1);
		RP_GROW(f->res_type, f->capres_type, (size_t)i + 1);
		f->res_name[i] = ff_cstr(f, name);
		f->res_type[i] = type;
	}
	return i;
}

static uint8_t category(const struct rp_sym *sym, bool in_file)
{
	switch (sym->kind) {
	case RP_SYM_KERNEL: return CAT_KERNEL;
	case RP_SYM_ERROR: return CAT_ERROR;
	case RP_SYM_INTERP:
		return sym->lang == TREC_FRAME_PERL ? CAT_PERL :
		       sym->lang == TREC_FRAME_RUBY ? CAT_RUBY :
		       sym->lang == TREC_FRAME_PHP  ? CAT_PHP : CAT_PYTHON;
	case RP_SYM_NATIVE:
		/* outside every recorded file: JIT code, unless nothing is known */
		return in_file || !sym->resolved ? CAT_USER : CAT_JIT;
	default: return CAT_JIT; /* kinds added later name code treport symbolizes itself */
	}
}

/* The frames of one symbol pushed on stack prefix (UINT32_MAX: root). */
static uint32_t push_sym(struct ff *f, uint32_t symid, uint32_t prefix, enum rp_lines part)
{
	const struct rp_sym *sym = rp_sym_get(f->r->s, symid);
	const struct rp_line *ln = rp_sym_lines(f->r->s, sym);
	const struct rp_strtab *st = &f->m->strs;
	const struct rp_file *file = sym->kind == RP_SYM_NATIVE && sym->file_id ?
		rp_model_file(f->m, sym->file_id) : NULL;
	if (file && !rp_str(st, file->path)[0])
		file = NULL;
	uint32_t nl = sym->nlines ? sym->nlines : 1;
	for (uint32_t k = nl; k-- > 0;) { /* outermost first */
		if ((part == RP_LINES_OWN && k != nl - 1) || (part == RP_LINES_INLINED && k == nl - 1))
			continue;
		uint8_t depth = (uint8_t)(nl - 1 - k < 255 ? nl - 1 - k : 255);
		bool added;
		uint32_t fi = rp_keytab_get(&f->frames, symid, depth, 0, &added);
		if (added) {
			struct ff_frame fr = { .address = -1, .lib = -1, .depth = depth,
					    .cat = category(sym, file != NULL) };
			int64_t res = -1, src = -1;
			uint32_t name, line = 0;
			char buf[1100];
			if (file) {
				fr.lib = (int32_t)rp_keytab_get(&f->libs, file->file_id, 0, 0, NULL);
				fr.address = sym->addr <= INT32_MAX ? (int64_t)sym->addr : -1;
				res = resource(f, 1, (uint64_t)fr.lib, base_name(rp_str(st, file->path)), 1);
			} else if (sym->kind == RP_SYM_KERNEL) {
				res = resource(f, 2, sym->dso, rp_str(st, sym->dso), 1);
			} else if (sym->kind != RP_SYM_ERROR && strcmp(rp_str(st, sym->dso), "[unknown]")) {
				res = resource(f, sym->kind == RP_SYM_INTERP ? 3 : 4, sym->dso,
					       base_name(rp_str(st, sym->dso)), 0);
			}
			if (sym->kind == RP_SYM_INTERP && !sym->resolved) {
				name = ff_str(f, sym->label);
			} else if (!sym->resolved && (sym->kind == RP_SYM_NATIVE || sym->kind == RP_SYM_KERNEL)) {
				/* as --folded names it */
				const char *dso = rp_str(st, sym->dso);
				if (!strcmp(dso, "[unknown]")) {
					name = ff_cstr(f, "[unknown]");
				} else {
					snprintf(buf, sizeof(buf), "[%s]", base_name(dso));
					name = ff_cstr(f, buf);
				}
			} else {
				name = ff_str(f, ln[k].func);
				if (ln[k].file)
					src = rp_keytab_get(&f->sources, ff_str(f, ln[k].file), 0, 0, NULL);
				line = ln[k].line;
			}
			fr.func = rp_keytab_get(&f->funcs, name, (uint64_t)(res + 1), (uint64_t)(src + 1),
						NULL);
			fr.line = line;
			RP_GROW(f->fr, f->capfr, (size_t)fi + 1);
			f->fr[fi] = fr;
		}
		prefix = rp_keytab_get(&f->stacks, prefix == UINT32_MAX ? 0 : (uint64_t)prefix + 1,
				       fi, 0, NULL);
	}
	return prefix;
}

/* The stack of an aggregate, UINT32_MAX when it has no frames. */
static uint32_t agg_stack(struct ff *f, uint32_t agg)
{
	if (f->agg_stack[agg])
		return f->agg_stack[agg] == 1 ? UINT32_MAX : f->agg_stack[agg] - 2;
	uint32_t n = rp_agg_syms(f->r, &f->m->aggs[agg], &f->syms, &f->capsyms);
	uint32_t s = UINT32_MAX;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t run = rp_interp_run_after(f->r, f->syms, k, n);
		/* an interpreter loop's inlined functions above its frames */
		s = push_sym(f, f->syms[k], s, run ? RP_LINES_OWN : RP_LINES_ALL);
		for (uint32_t j = 1; j <= run; j++)
			s = push_sym(f, f->syms[k + j], s, RP_LINES_ALL);
		if (run)
			s = push_sym(f, f->syms[k], s, RP_LINES_INLINED);
		k += run;
	}
	f->agg_stack[agg] = s == UINT32_MAX ? 1 : s + 2;
	return s;
}

struct ff_th *ff_thread(struct ff *f, uint32_t rec, uint32_t pid, uint32_t tid,
				bool create)
{
	bool added = false;
	uint32_t i = create ? rp_keytab_get(&f->threads, rec, pid, tid, &added)
			    : rp_keytab_find(&f->threads, rec, pid, tid);
	if (i == TREC_ITAB_NONE)
		return NULL;
	if (added) {
		RP_GROW(f->th, f->capth, (size_t)i + 1);
		f->th[i] = (struct ff_th){ .rec = rec, .pid = pid, .tid = tid };
	}
	return &f->th[i];
}

static void collect_samples(struct ff *f)
{
	struct rp_model *m = f->m;
	uint32_t *order = rp_model_events_by_time(m);
	/* Stacks in aggregate order, as --folded symbolizes them: the
	 * symbolizer's cache keeps the first answer for a raw pc of a pid. */
	for (size_t i = 0; i < m->naggs; i++)
		if (m->aggs[i].count)
			agg_stack(f, (uint32_t)i);
	for (size_t i = 0; i < m->nevents; i++) {
		const struct rp_event *e = &m->events[order[i]];
		const struct rp_agg *a = &m->aggs[e->agg];
		struct ff_th *t = ff_thread(f, a->rec, a->pid, a->tid, true);
		uint32_t s = agg_stack(f, e->agg);
		char comm[32];
		rp_comm_name(m, a, comm, sizeof(comm));
		t->name = rp_strtab_intern(&m->strs, comm); /* the last one wins */
		RP_GROW(t->stack, t->cap, t->n + 1);
		RP_GROW(t->time, t->capt, t->n + 1);
		RP_GROW(t->weight, t->capw, t->n + 1);
		t->stack[t->n] = s;
		t->time[t->n] = ff_rel_ns(f, a->rec, e->time_ns);
		t->weight[t->n++] = e->weight;
	}
	free(order);
}

/* fork, exec and exit go to the process's main thread (or any thread of it). */
static void collect_markers(struct ff *f)
{
	struct rp_model *m = f->m;
	/* (rec, pid) -> its first thread + 1: one pass, not one per event */
	struct trec_u64map any = { 0 };
	for (size_t k = 0; k < f->threads.n; k++) {
		uint64_t key = (uint64_t)f->th[k].rec << 32 | f->th[k].pid;
		int err = 0;
		if (!trec_u64map_get(&any, key))
			trec_u64map_put(&any, key, (void *)(uintptr_t)(k + 1), &err);
		if (err)
			rp_out_of_memory(sizeof(uint64_t));
	}
	for (size_t i = 0; i < m->npid_events; i++) {
		const struct rp_pid_event *e = &m->pid_events[i];
		if (e->kind != TREC_PEV_FORK && e->kind != TREC_PEV_EXEC && e->kind != TREC_PEV_EXIT)
			continue;
		struct ff_th *t = ff_thread(f, e->rec, e->pid, e->pid, false);
		uintptr_t k = (uintptr_t)trec_u64map_get(&any, (uint64_t)e->rec << 32 | e->pid);
		if (!t && k)
			t = &f->th[k - 1];
		if (!t)
			continue; /* a process without samples */
		RP_GROW(t->markers, t->capmarkers, t->nmarkers + 1);
		t->markers[t->nmarkers++] = (uint32_t)i;
	}
	trec_u64map_free(&any);
}

static int cmp_thread(const void *a, const void *b, void *ctx)
{
	const struct ff_th *th = ctx, *x = &th[*(const uint32_t *)a], *y = &th[*(const uint32_t *)b];
	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_marker(const void *a, const void *b, void *ctx)
{
	const struct rp_pid_event *ev = ctx;
	uint32_t i = *(const uint32_t *)a, k = *(const uint32_t *)b;
	if (ev[i].time_ns != ev[k].time_ns)
		return ev[i].time_ns < ev[k].time_ns ? -1 : 1;
	return (i > k) - (i < k);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int rp_output_firefox(const struct rp_report *r, FILE *out)
{
	struct ff f = { .r = r, .m = r->m };
	for (size_t i = 0; i < f.m->nrecs; i++) {
		uint64_t c = f.m->recs[i].hdr.creation_time_ns;
		if (c && (!f.zero_ns || c < f.zero_ns))
			f.zero_ns = c;
	}
	f.agg_stack = xcalloc(f.m->naggs ? f.m->naggs : 1, sizeof(*f.agg_stack));
	collect_samples(&f);
	collect_markers(&f);
	uint64_t end_ns = 0;
	uint32_t *order = xmalloc((f.threads.n ? f.threads.n : 1) * sizeof(*order));
	for (size_t i = 0; i < f.threads.n; i++) {
		struct ff_th *t = &f.th[i];
		order[i] = (uint32_t)i;
		if (t->n && t->time[t->n - 1] > end_ns)
			end_ns = t->time[t->n - 1];
		if (t->nmarkers)
			qsort_r(t->markers, t->nmarkers, sizeof(*t->markers), cmp_marker,
				f.m->pid_events);
	}
	qsort_r(order, f.threads.n, sizeof(*order), cmp_thread, f.th);
	/* marker names: interned before the stringArray is written */
	ff_cstr(&f, "fork");
	ff_cstr(&f, "exec");
	ff_cstr(&f, "exit");
	end_ns += rp_period_ns(f.m, 0);

	struct rp_jw *j = rp_jw_open(out, r->o->out_path && ends_with(r->o->out_path, ".gz"));
	ff_write(&f, j, order, end_ns);
	int rc = rp_jw_close(j);
	if (rc)
		fprintf(stderr, "treport: writing %s failed: %s\n",
			r->o->out_path ? r->o->out_path : "stdout", strerror(errno));

	for (size_t i = 0; i < f.threads.n; i++) {
		free(f.th[i].stack);
		free(f.th[i].time);
		free(f.th[i].weight);
		free(f.th[i].markers);
	}
	free(order);
	free(f.th);
	free(f.fr);
	free(f.res_name);
	free(f.res_type);
	free(f.agg_stack);
	free(f.syms);
	rp_keytab_free(&f.strs);
	rp_keytab_free(&f.libs);
	rp_keytab_free(&f.resources);
	rp_keytab_free(&f.sources);
	rp_keytab_free(&f.funcs);
	rp_keytab_free(&f.frames);
	rp_keytab_free(&f.stacks);
	rp_keytab_free(&f.threads);
	return rc;
}
