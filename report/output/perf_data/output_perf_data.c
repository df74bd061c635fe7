// SPDX-License-Identifier: MIT
/*
 * treport --perf-data -o FILE: the recording as a perf.data file that perf
 * 6.1 reads (perf report, perf script), with the symbols in a build-id
 * cache beside it, FILE.debug/ (perf --buildid-dir FILE.debug report ...).
 *
 * One cpu-clock event sampled with callchains. The callchains are trec's
 * stacks, already unwound: perf needs no stack copy and no unwinding.
 * Side-band records, in one time-ordered stream with the samples: COMM
 * (the command of each thread as its samples name it, exec-flagged at an
 * exec), FORK and EXIT from the recording's process events, and before a
 * process's first record, and again after a fork or exec of it, the MMAP2
 * set perf_data_layout.c gives it. A sample of weight w is written w times.
 */
#include "report/output/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "format/containers/u64map.h"
#include "report/output/perf_data/perf_buildid_cache.h"
#include "report/output/perf_data/perf_data_layout.h"
#include "report/output/perf_data/perf_data_write.h"
#include "trec_format.h"

#define MAX_COPIES 4096 /* a weight beyond this goes into the last copy's period */
/* What the copies past each sample's first may add to the file in all: a
 * weight is the writer's word (trecord writes 1), so a hostile file of a
 * few bytes must not make gigabytes; past it weights go into periods. */
#define MAX_COPY_BYTES (64u << 20)
#define ROUND 4096      /* records between FINISHED_ROUNDs */

/* The events of the file; an off-CPU event would be a second entry. */
enum { EV_CPU_CLOCK };

struct item {
	uint64_t time;
	uint32_t kind; /* 0: process event, 1: sample (events first at one time) */
	uint32_t idx;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

struct exporter {
	const struct rp_report *r;
	struct pd_writer *w;
	struct pd_layout *l;
	struct trec_u64map seen;  /* pid -> parent pid + 1 */
	struct trec_u64map comms; /* pid << 32 | tid -> comm string id + 1 */
	size_t records;
	uint64_t samples; /* SAMPLE records written */
	uint64_t copy_bytes; /* written by copies past a sample's first (MAX_COPY_BYTES) */
};

static void round_maybe(struct exporter *x)
{
	if (++x->records % ROUND == 0)
		pd_finished_round(x->w);
}

static void put_maps(struct exporter *x, uint32_t pid, uint64_t time)
{
	uint32_t n, nd;
	const struct pd_map *maps = pd_layout_maps(x->l, pid, &n);
	const struct pd_dso *dsos = pd_layout_dsos(x->l, &nd);
	for (uint32_t i = 0; i < n; i++) {
		const struct pd_dso *d = &dsos[maps[i].dso];
		pd_mmap2(x->w, pid, maps[i].start, maps[i].end - maps[i].start, maps[i].pgoff,
			 d->build_id, d->build_id_len, rp_str(&x->r->m->strs, d->name), time);
		round_maybe(x);
	}
}

static void set_comm(struct exporter *x, uint32_t pid, uint32_t tid, uint32_t comm)
{
	trec_u64map_put(&x->comms, (uint64_t)pid << 32 | tid, (void *)(uintptr_t)(comm + 1), NULL);
}

static void put_comm(struct exporter *x, uint32_t pid, uint32_t tid, uint32_t comm, bool exec,
		     uint64_t time)
{
	pd_comm(x->w, pid, tid, rp_str(&x->r->m->strs, comm), exec, time);
	set_comm(x, pid, tid, comm);
	round_maybe(x);
}

/* The first record of a process: its command and its maps. */
static void process_start(struct exporter *x, uint32_t pid, uint32_t ppid, uint32_t tid,
			  uint32_t comm, uint64_t time)
{
	trec_u64map_put(&x->seen, pid, (void *)(uintptr_t)((uint64_t)ppid + 1), NULL);
	if (comm)
		put_comm(x, pid, tid, comm, false, time);
	put_maps(x, pid, time);
}

static uint32_t parent_of(struct exporter *x, uint32_t pid)
{
	uintptr_t v = (uintptr_t)trec_u64map_get(&x->seen, pid);
	return v ? (uint32_t)(v - 1) : pid;
}

static void pid_event(struct exporter *x, const struct rp_pid_event *e)
{
	uint32_t n;
	if (!pd_layout_maps(x->l, e->pid, &n))
		return; /* a process without samples */
	bool seen = trec_u64map_get(&x->seen, e->pid);
	switch (e->kind) {
	case TREC_PEV_FORK:
		pd_fork(x->w, e->pid, e->ppid, e->tid, e->ppid, e->time_ns);
		round_maybe(x);
		/* perf gave the child its parent's maps and command */
		trec_u64map_del(&x->comms, (uint64_t)e->pid << 32 | e->tid);
		process_start(x, e->pid, e->ppid, e->tid, e->comm, e->time_ns);
		break;
	case TREC_PEV_EXEC:
		if (!seen)
			process_start(x, e->pid, e->pid, e->pid, 0, e->time_ns);
		if (e->comm)
			put_comm(x, e->pid, e->tid, e->comm, true, e->time_ns);
		put_maps(x, e->pid, e->time_ns);
		break;
	case TREC_PEV_EXIT:
		if (seen) {
			uint32_t parent = parent_of(x, e->pid);
			pd_exit(x->w, e->pid, parent, e->tid, parent, e->time_ns);
			round_maybe(x);
		}
		break;
	case TREC_PEV_COMM:
		if (!seen)
			process_start(x, e->pid, e->pid, e->pid, 0, e->time_ns);
		if (e->comm)
			put_comm(x, e->pid, e->tid, e->comm, false, e->time_ns);
		break;
	}
}

static void sample(struct exporter *x, const struct rp_event *e, bool *warned)
{
	const struct rp_model *m = x->r->m;
	const struct rp_agg *a = &m->aggs[e->agg];
	char comm[32];
	rp_comm_name(m, a, comm, sizeof(comm));
	uint32_t cid = rp_strtab_intern(&x->r->m->strs, comm);
	if (!trec_u64map_get(&x->seen, a->pid))
		process_start(x, a->pid, a->pid, a->tid, a->pid == a->tid ? cid : 0, e->time_ns);
	uintptr_t known = (uintptr_t)trec_u64map_get(&x->comms, (uint64_t)a->pid << 32 | a->tid);
	if (known != (uintptr_t)cid + 1)
		put_comm(x, a->pid, a->tid, cid, false, e->time_ns);

	uint32_t n;
	uint64_t ip;
	uint8_t mode;
	bool cut;
	const uint64_t *chain = pd_layout_chain(x->l, e->agg, &n, &ip, &mode, &cut);
	if (cut && !warned[0]) {
		fprintf(stderr, "treport: warning: stacks deeper than %u frames lose their outermost "
			"frames in perf.data\n", PD_MAX_CALLCHAIN);
		warned[0] = true;
	}
	uint64_t period = rp_period_ns(m, a->rec) ? rp_period_ns(m, a->rec) : 1;
	uint64_t copies = e->weight > MAX_COPIES ? MAX_COPIES : e->weight;
	/* (a bound on a copy's size: its callchain and fixed fields) */
	uint64_t copy_size = 8 * (uint64_t)n + 128;
	uint64_t budget = x->copy_bytes < MAX_COPY_BYTES ? MAX_COPY_BYTES - x->copy_bytes : 0;
	if (copies > 1 + budget / copy_size)
		copies = 1 + budget / copy_size;
	x->copy_bytes += (copies - 1) * copy_size;
	if (copies < e->weight && !warned[1]) {
		fprintf(stderr, "treport: warning: samples of weight over %u (or past %u MiB of "
			"copies in all) are written fewer times, the rest in the period\n",
			MAX_COPIES, MAX_COPY_BYTES >> 20);
		warned[1] = true;
	}
	for (uint64_t c = 0; c < copies; c++) {
		uint64_t p = period;
		if (c + 1 == copies && e->weight > copies) {
			uint64_t extra = e->weight - copies;
			p = rp_sat_mul(period, extra + 1);
		}
		pd_sample(x->w, EV_CPU_CLOCK, a->pid, a->tid, e->cpu, e->time_ns, p, ip, mode,
			  chain, n);
		x->samples++;
		round_maybe(x);
	}
}

static void build_ids(struct exporter *x, const uint8_t *kid, bool kernel)
{
	uint32_t n;
	const struct pd_dso *d = pd_layout_dsos(x->l, &n);
	if (kernel)
		pd_build_id(x->w, "[kernel.kallsyms]", kid, 20, true);
	for (uint32_t i = 0; i < n; i++)
		if (d[i].build_id_len)
			pd_build_id(x->w, rp_str(&x->r->m->strs, d[i].name), d[i].build_id,
				    d[i].build_id_len, false);
}

static int write_stream(struct exporter *x, const uint8_t *kid, uint64_t ktext,
			uint64_t *first, uint64_t *last)
{
	const struct rp_model *m = x->r->m;
	size_t n = m->npid_events + m->nevents;
	struct item *items = xcalloc(n ? n : 1, sizeof(*items));
	for (size_t i = 0; i < m->npid_events; i++)
		items[i] = (struct item){ m->pid_events[i].time_ns, 0, (uint32_t)i };
	for (size_t i = 0; i < m->nevents; i++)
		items[m->npid_events + i] = (struct item){ m->events[i].time_ns, 1, (uint32_t)i };
	qsort(items, n, sizeof(*items), cmp_item);
	*first = m->nevents ? UINT64_MAX : 0;
	*last = 0;
	for (size_t i = 0; i < m->nevents; i++) {
		*first = m->events[i].time_ns < *first ? m->events[i].time_ns : *first;
		*last = m->events[i].time_ns > *last ? m->events[i].time_ns : *last;
	}
	build_ids(x, kid, ktext != 0);
	if (ktext)
		pd_kernel_mmap(x->w, ktext, n ? items[0].time : 0);
	bool warned[2] = { false, false };
	for (size_t i = 0; i < n; i++) {
		if (items[i].kind == 0)
			pid_event(x, &m->pid_events[items[i].idx]);
		else
			sample(x, &m->events[items[i].idx], warned);
	}
	free(items);
	return 0;
}

int rp_output_perf_data(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	if (m->nrecs != 1) {
		fprintf(stderr, "treport: --perf-data exports one recording at a time (%zu given)\n",
			m->nrecs);
		return -1;
	}
	const struct rp_recording *rec = &m->recs[0];
	char dir[4096], err[512];
	struct stat st;
	/* perf.data is seeked back to its header, and its symbols go beside
	 * it: a regular file (not /dev/full, beside which no FILE.debug/) */
	if (r->o->out_path && !stat(r->o->out_path, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "treport: --perf-data writes a regular file: %s is not one\n",
			r->o->out_path);
		return -1;
	}
	if (snprintf(dir, sizeof(dir), "%s.debug", r->o->out_path ? r->o->out_path : "perf.data") >=
	    (int)sizeof(dir)) {
		fprintf(stderr, "treport: output path too long\n");
		return -1;
	}
	uint64_t freq = rec->fixed_period ? 0 : rec->freq_hz; /* -c: perf's -c */
	const struct pd_event events[] = {
		[EV_CPU_CLOCK] = { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, freq,
				   rec->period_ns ? rec->period_ns : 1 },
	};
	struct exporter x = { .r = r };
	x.w = pd_open(out, events, sizeof(events) / sizeof(events[0]), err, sizeof(err));
	if (!x.w) {
		fprintf(stderr, "treport: %s\n", err);
		return -1;
	}
	x.l = pd_layout_new(r);
	uint8_t kid[20];
	pd_kernel_build_id(rec, kid);
	/* the kernel map starts a page below its lowest frame, where _text is */
	uint64_t kstart = pd_layout_kernel_start(x.l), ktext = 0;
	if (kstart != UINT64_MAX && kstart >= 0x2000)
		ktext = (kstart & ~0xfffull) - 0x1000;
	unsigned files = 0;
	int rc = pd_buildid_cache_write(r, x.l, dir, kid, ktext, &files);

	uint64_t first, last;
	write_stream(&x, kid, ktext, &first, &last);
	const char *cmdline[] = { rp_model_meta(m, 0, "cmdline"), NULL };
	const char *cpus = rp_model_meta(m, 0, "nr_cpus");
	struct pd_host host = {
		.hostname = rec->hdr.hostname, .os_release = rec->hdr.kernel_release,
		.arch = rec->hdr.machine, .version = "trec treport (perf.data export)",
		.nr_cpus = cpus ? (uint32_t)strtoul(cpus, NULL, 10) : 0,
		.cmdline = cmdline[0] ? cmdline : NULL,
		.first_sample_ns = first, .last_sample_ns = last,
	};
	if (pd_close(x.w, &host)) {
		fprintf(stderr, "treport: writing %s failed: %s\n", r->o->out_path, strerror(errno));
		rc = -1;
	}
	if (!rc)
		fprintf(stderr, "treport: wrote %s (%" PRIu64 " samples) and %u symbol files to %s/;\n"
			"  read it with: perf --buildid-dir %s report -i %s\n", r->o->out_path,
			x.samples, files, dir, dir, r->o->out_path);
	pd_layout_free(x.l);
	trec_u64map_free(&x.seen);
	trec_u64map_free(&x.comms);
	return rc;
}
