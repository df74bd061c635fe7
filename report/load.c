// SPDX-License-Identifier: MIT
/*
 * Reads .tr records into the model. Every value is treated as hostile:
 * the format library bounds lengths, this file bounds meaning (frame
 * counts, weights, comm strings, mapping ranges, symbol order).
 */
#include "report/load.h"
#include "report/interp/interp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"
#include "report/symbols/ksyms.h"
#include "report/jit/jitsyms.h"
#include "trec_types.h"

struct load_ctx {
	const char *path;
	bool warned_depth;
};

static void reader_warn(void *ctx, const char *msg)
{
	const struct load_ctx *c = ctx;
	fprintf(stderr, "treport: warning: %s: %s\n", c->path, msg);
}

static bool sample_selected(const struct trec_sample *s, const char *comm,
			    const struct rp_options *o)
{
	size_t i;
	if (o->npids) {
		for (i = 0; i < o->npids && o->pids[i] != s->pid; i++)
			;
		if (i == o->npids)
			return false;
	}
	if (o->ntids) {
		for (i = 0; i < o->ntids && o->tids[i] != s->tid; i++)
			;
		if (i == o->ntids)
			return false;
	}
	if (o->ncomms) {
		for (i = 0; i < o->ncomms && strcmp(o->comms[i], comm); i++)
			;
		if (i == o->ncomms)
			return false;
	}
	return true;
}

static void copy_frames(struct rp_frame *out, const struct trec_rec_frame *in, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		out[i].file_id = in[i].file_id;
		out[i].addr = in[i].addr;
		out[i].kind = in[i].kind;
		out[i].flags = in[i].flags;
	}
}

void rp_load_sample(struct rp_model *m, uint32_t rec, const struct trec_sample *s,
		    const struct rp_options *o)
{
	struct rp_recording *r = &m->recs[rec];
	uint64_t weight = s->weight ? s->weight : 1; /* the format says >= 1 */
	char comm[TREC_COMM_LEN];
	memcpy(comm, s->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = 0;
	rp_sanitize(comm, sizeof(comm), comm);

	bool offcpu = s->flags & TREC_SAMPLE_F_OFFCPU;
	if (offcpu) {
		r->offcpu_read++;
		r->offcpu_ns_read = rp_sat_add(r->offcpu_ns_read, s->offcpu_ns);
	} else {
		r->samples_read = rp_sat_add(r->samples_read, weight);
		if (s->time_ns < r->cpu_min_ns)
			r->cpu_min_ns = s->time_ns;
		if (s->time_ns > r->cpu_max_ns)
			r->cpu_max_ns = s->time_ns;
	}
	if (s->time_ns < r->min_ns)
		r->min_ns = s->time_ns;
	if (s->time_ns > r->max_ns)
		r->max_ns = s->time_ns;
	if ((o->event != RP_EVENT_WALL && offcpu != (o->event == RP_EVENT_OFFCPU)) ||
	    !sample_selected(s, comm, o))
		return;
	uint64_t count = weight;
	if (offcpu) /* weighed in time blocked */
		weight = s->offcpu_ns ? s->offcpu_ns : 1;
	else if (o->event == RP_EVENT_WALL) /* weighed in time on the CPU */
		weight = rp_sat_mul(weight, r->period_ns ? r->period_ns : 1);

	uint32_t nk = s->kernel_frames ? s->num_kernel_frames : 0;
	uint32_t nu = s->user_frames ? s->num_user_frames : 0;
	if (o->user_only)
		nk = 0;
	if (o->kernel_only)
		nu = 0;
	if (!nk && !nu && (s->num_kernel_frames || s->num_user_frames))
		return; /* nothing of the selected side */
	/* Leaf first: dropping the tail keeps the hot end of absurd stacks. */
	if (nk > RP_MAX_STACK_FRAMES)
		nk = RP_MAX_STACK_FRAMES;
	if (nu > RP_MAX_STACK_FRAMES)
		nu = RP_MAX_STACK_FRAMES;

	struct rp_frame stackbuf[256];
	struct rp_frame *frames = nk + nu <= 256 ? stackbuf : xmalloc((nk + nu) * sizeof(*frames));
	copy_frames(frames, s->kernel_frames, nk);
	copy_frames(frames + nk, s->user_frames, nu);
	for (uint32_t i = 0; i < nk; i++) { /* kernel frames have no file */
		if (frames[i].flags & TREC_FRAME_F_ERROR)
			continue;
		frames[i].kind = TREC_FRAME_KERNEL;
		frames[i].file_id = 0;
	}
	uint32_t stack = rp_model_intern_stack(m, frames, nk, nu);
	if (frames != stackbuf)
		free(frames);

	/* A process is named as its main thread (as ps does), another
	 * thread's name only until the main one is seen. */
	struct rp_process *p = rp_model_process(m, rec, s->pid, true);
	if (s->tid == s->pid || !p->comm)
		p->comm = rp_strtab_intern(&m->strs, comm);
	rp_model_add_sample(m, rec, s->pid, s->tid, comm, stack, s->time_ns, s->cpu, weight, offcpu);
	if (offcpu)
		r->offcpu_kept++;
	else
		r->samples_kept = rp_sat_add(r->samples_kept, count);
}

/* A META number in [1, max], or 0 with a warning. */
static uint64_t meta_number(struct rp_model *m, uint32_t rec, const char *key, const char *v,
			    uint64_t max, const char *what)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!errno && end != v && !*end && n > 0 && n <= max)
		return n;
	fprintf(stderr, "treport: warning: %s: META %s '%s' is not %s\n",
		rp_str(&m->strs, m->recs[rec].path), key, v, what);
	return 0;
}

static void load_meta(struct rp_model *m, uint32_t rec, const struct trec_meta *meta)
{
	struct rp_recording *r = &m->recs[rec];
	uint64_t period = 0;
	for (uint32_t i = 0; i < meta->num_entries; i++) {
		const char *k = meta->entries[i].key ? meta->entries[i].key : "";
		const char *v = meta->entries[i].value ? meta->entries[i].value : "";
		char kb[256], vb[4096];
		rp_sanitize(kb, sizeof(kb), k);
		rp_sanitize(vb, sizeof(vb), v);
		rp_model_add_meta(m, rec, kb, vb);
		if (!strcmp(kb, "freq_hz")) {
			uint64_t f = meta_number(m, rec, kb, vb, 1000000000ULL, "a frequency");
			if (f) {
				r->freq_hz = f;
				r->period_ns = 1000000000ULL / f;
			}
		} else if (!strcmp(kb, "sample_period_ns")) {
			/* trecord -c's exact period (freq_hz is rounded from it) */
			period = meta_number(m, rec, kb, vb, 1000000000000ULL, "a period");
		}
	}
	if (period) {
		r->fixed_period = !r->freq_hz || period != 1000000000ULL / r->freq_hz;
		r->period_ns = period;
	}
}

static void load_metrics(struct rp_model *m, uint32_t rec, const struct trec_metrics *mt)
{
	struct rp_recording *r = &m->recs[rec];
	if (r->metrics && mt->time_ns < r->metrics_time_ns)
		return; /* counters are cumulative: the newest set wins */
	free(r->metrics);
	r->metrics = xcalloc(mt->num_values, sizeof(*r->metrics));
	r->nmetrics = mt->num_values;
	r->metrics_time_ns = mt->time_ns;
	for (uint32_t i = 0; i < mt->num_values; i++) {
		char nb[256];
		rp_sanitize(nb, sizeof(nb), mt->values[i].name ? mt->values[i].name : "");
		r->metrics[i].id = mt->values[i].id;
		r->metrics[i].name = rp_strtab_intern(&m->strs, nb);
		r->metrics[i].value = mt->values[i].value;
	}
}

static void load_pid_event(struct rp_model *m, uint32_t rec, const struct trec_pid_event *e)
{
	m->recs[rec].pid_events++;
	char comm[TREC_COMM_LEN], file[4096];
	memcpy(comm, e->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = 0;
	rp_sanitize(comm, sizeof(comm), comm);
	rp_sanitize(file, sizeof(file), e->filename ? e->filename : "");
	RP_GROW(m->pid_events, m->cappid_events, m->npid_events + 1);
	m->pid_events[m->npid_events++] = (struct rp_pid_event){
		.time_ns = e->time_ns, .rec = rec, .kind = e->kind, .pid = e->pid, .tid = e->tid,
		.ppid = e->parent_pid, .exit_code = e->exit_code,
		.comm = rp_strtab_intern(&m->strs, comm), .filename = rp_strtab_intern(&m->strs, file),
	};
	if (e->kind != TREC_PEV_COMM && e->kind != TREC_PEV_EXEC && e->kind != TREC_PEV_FORK)
		return;
	struct rp_process *p = rp_model_process(m, rec, e->pid, true);
	if (comm[0])
		p->comm = rp_strtab_intern(&m->strs, comm);
}

/* Embedded symbols: kept per file id, parsed when a frame needs them. */
static void load_symtab(struct rp_model *m, const struct trec_blob *b)
{
	if (!m->archives)
		m->archives = trec_archive_store_new(NULL, NULL);
	if (!m->archives || trec_archive_store_add(m->archives, b))
		fprintf(stderr, "treport: warning: out of memory keeping embedded symbols\n");
}

static void load_record(struct rp_model *m, uint32_t rec, const struct trec_record *r,
			const struct rp_options *o)
{
	struct rp_recording *rr = &m->recs[rec];
	if ((unsigned)r->type < 16)
		rr->records_by_type[r->type]++;
	switch (r->type) {
	case TREC_REC_META: load_meta(m, rec, &r->u.meta); break;
	case TREC_REC_SAMPLE: rp_load_sample(m, rec, &r->u.sample, o); break;
	case TREC_REC_MAPPINGS: rp_model_add_snapshot(m, rec, &r->u.mappings); break;
	case TREC_REC_PID_EVENT: load_pid_event(m, rec, &r->u.pid_event); break;
	case TREC_REC_FILE: rp_model_add_file(m, &r->u.file); break;
	case TREC_REC_KSYMS: rp_ksyms_set(m, rec, &r->u.ksyms); break;
	case TREC_REC_METRICS: load_metrics(m, rec, &r->u.metrics); break;
	case TREC_REC_SUMMARY:
		rr->have_summary = true;
		rr->summary = r->u.summary;
		break;
	case TREC_REC_SYMTAB: load_symtab(m, &r->u.blob); break;
	case TREC_REC_PYCODE:
	case TREC_REC_INTERP_CODE:
		/* interpreter code; a malformed record leaves its frames unnamed */
		rp_interp_load(&rr->interp, (uint8_t)r->type, &r->u.blob);
		break;
	case TREC_REC_JITSYMS: rp_jit_add(&m->jit, &m->strs, rec, &r->u.jitsyms); break;
	default:
		break; /* BLOB: not used yet */
	}
}

int rp_load_file(struct rp_model *m, const char *path, const struct rp_options *o)
{
	struct load_ctx ctx = { .path = path };
	struct trec_reader_opts ro = {
		.flags = o->force ? TREC_READ_FORCE : 0,
		.warn = reader_warn,
		.warn_ctx = &ctx,
	};
	char errbuf[512] = "";
	int err = 0;
	/* "-": a recording piped in (trecord -o -) */
	struct trec_reader *rd = strcmp(path, "-")
		? trec_reader_open(path, &ro, &err, errbuf, sizeof(errbuf))
		: trec_reader_open_fd(STDIN_FILENO, "-", &ro, &err, errbuf, sizeof(errbuf));
	if (!rd) {
		const char *msg = errbuf[0] ? errbuf : strerror(err < 0 ? -err : EINVAL);
		size_t plen = strlen(path);
		if (!strncmp(msg, path, plen) && !strncmp(msg + plen, ": ", 2))
			msg += plen + 2; /* the reader named the file already */
		fprintf(stderr, "treport: %s: %s\n", path, msg);
		return -1;
	}
	uint32_t rec = rp_model_add_recording(m, path);
	m->recs[rec].hdr = *trec_reader_header(rd);
	struct rp_recording *rr;
	int rc = 0;
	struct trec_record r;
	int n;
	while ((n = trec_reader_next(rd, &r)) > 0)
		load_record(m, rec, &r, o);
	rr = &m->recs[rec];
	trec_reader_stats(rd, &rr->stats);
	rr->truncated = rr->stats.truncated;
	if (n < 0) {
		const char *msg = trec_reader_error(rd);
		if (o->force || rr->stats.truncated) {
			fprintf(stderr, "treport: warning: %s: %s; reporting the %" PRIu64
				" records read before it\n", path, msg, rr->stats.records);
			rr->failed = true;
		} else {
			fprintf(stderr, "treport: %s: %s\n", path, msg);
			rc = -1;
		}
	}
	rp_interp_warn(&rr->interp, path);
	/* Waits whose end BPF did not see are not in the file (README, Off-CPU
	 * time, Limits): the time blocked shown is short of them. */
	uint64_t lost = rp_sat_add(rp_model_metric(m, rec, "OFFCPU_NO_SWITCH_IN"),
				   rp_model_metric(m, rec, "OFFCPU_PENDING_FULL"));
	if (lost && o->event != RP_EVENT_CPU_CLOCK)
		fprintf(stderr, "treport: warning: %s: %" PRIu64 " off-CPU wait(s) were lost "
			"(OFFCPU_NO_SWITCH_IN, OFFCPU_PENDING_FULL): the time blocked lacks them\n",
			path, lost);
	/* truncation itself was a reader warning: the file is still reported */
	if (!rc && !rr->have_summary && !rr->truncated && !rr->failed)
		fprintf(stderr, "treport: warning: %s: recording is incomplete (no SUMMARY record: "
			"trecord did not stop cleanly)\n", path);
	if (rr->stats.bad_chunks && !rc)
		fprintf(stderr, "treport: warning: %s: skipped %" PRIu64 " corrupt chunk(s)\n", path,
			rr->stats.bad_chunks);
	trec_reader_close(rd);
	return rc;
}
