// SPDX-License-Identifier: MIT
/*
 * --info: what a recording holds. Header and host facts, META, the
 * summary, chunk and record counts per type, processes, metrics named from
 * bpf/trec_errors.h, and how many samples ended in each error frame.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trec_types.h"
#include "trecord_metrics.h"
#include "report/jit/jitsyms.h"

static const char *const metric_names[] = {
#define TREC_X(name, desc) #name,
	TREC_METRIC_LIST(TREC_X)
#undef TREC_X
};

static const char *const metric_descs[] = {
#define TREC_X(name, desc) desc,
	TREC_METRIC_LIST(TREC_X)
#undef TREC_X
};

static const char *const trecord_metric_names[] = {
#define TREC_X(name, desc) #name,
	TRECORD_METRIC_LIST(TREC_X)
#undef TREC_X
};

static const char *const trecord_metric_descs[] = {
#define TREC_X(name, desc) desc,
	TRECORD_METRIC_LIST(TREC_X)
#undef TREC_X
};

/* A trecord metric's description, if the recording names it as we do
 * (ids are never reused, but a recording may come from another build). */
static const char *trecord_metric_desc(uint32_t id, const char *name)
{
	uint32_t i = id - TRECORD_METRIC_BASE;

	if (id < TRECORD_METRIC_BASE || i >= TRECORD_METRIC_COUNT ||
	    strcmp(name, trecord_metric_names[i]))
		return "";
	return trecord_metric_descs[i];
}

static void print_header(FILE *out, const struct trec_header *h)
{
	char when[64] = "?";
	time_t t = (time_t)(h->creation_time_ns / 1000000000ULL);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	char host[66], rel[66], mach[66];
	/* header strings come from the file: bound and clean them */
	memcpy(host, h->hostname, 65); host[65] = 0;
	memcpy(rel, h->kernel_release, 65); rel[65] = 0;
	memcpy(mach, h->machine, 65); mach[65] = 0;
	rp_sanitize(host, sizeof(host), host);
	rp_sanitize(rel, sizeof(rel), rel);
	rp_sanitize(mach, sizeof(mach), mach);
	fprintf(out, "  format:      %u.%u (flags 0x%x)\n", h->version_major, h->version_minor, h->flags);
	fprintf(out, "  created:     %s\n", when);
	fprintf(out, "  host:        %s, kernel %s, %s, page size %u, clock %u\n", host, rel, mach,
		h->page_size, h->clock_id);
}

struct err_count {
	uint64_t code, frames, samples;
};

static void count_errors(const struct rp_model *m, uint32_t rec, struct err_count **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < m->naggs; i++) {
		const struct rp_agg *a = &m->aggs[i];
		if (a->rec != rec || !a->count)
			continue;
		const struct rp_stack *st = &m->stacks[a->stack];
		const struct rp_frame *f = rp_stack_frames(m, a->stack);
		for (uint32_t k = 0; k < st->nkernel + st->nuser; k++) {
			if (!(f[k].flags & TREC_FRAME_F_ERROR))
				continue;
			size_t j;
			for (j = 0; j < *n && (*out)[j].code != f[k].addr; j++)
				;
			if (j == *n) {
				RP_GROW(*out, cap, *n + 1);
				(*out)[(*n)++] = (struct err_count){ .code = f[k].addr };
			}
			(*out)[j].frames++;
			(*out)[j].samples = rp_sat_add((*out)[j].samples, a->count);
		}
	}
}

/* "SIGINT" for 2; sigabbrev_np is glibc 2.32. */
static const char *sig_name(int sig, char *buf, size_t n)
{
	const char *a = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
	if (a)
		snprintf(buf, n, "SIG%s", a);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}

/* How the recording and its command ended (SUMMARY flags and wait
 * status), in words rather than a raw status. */
static void print_end(FILE *out, const struct trec_summary *s, const char *mode)
{
	char sig[32];
	switch (TREC_SUMMARY_CAUSE(s->flags)) {
	case TREC_STOP_SIGNAL:
		fprintf(out, "; stopped by %s",
			sig_name((int)TREC_SUMMARY_SIGNAL(s->flags), sig, sizeof(sig)));
		break;
	case TREC_STOP_DURATION:
		fprintf(out, "; stopped by --duration");
		break;
	case TREC_STOP_PIDS:
		fprintf(out, "; every -p process exited");
		break;
	case TREC_STOP_ERROR:
		fprintf(out, "; stopped by a write error");
		break;
	case TREC_STOP_SWITCH:
		fprintf(out, "; a switched file (the recording went on)");
		break;
	}
	int st = s->exit_status;
	if (st == -1 && mode && strncmp(mode, "command", 7))
		fprintf(out, "; no command (%s)", mode);
	else if (st == -1)
		fprintf(out, "; the command's end was not seen");
	else if (WIFEXITED(st))
		fprintf(out, "; the command exited with %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(out, "; the command was killed by %s", sig_name(WTERMSIG(st), sig, sizeof(sig)));
	else
		fprintf(out, "; the command's wait status was %#x", (unsigned)st);
	fputc('\n', out);
}

/* What the chunk sequence, the SUMMARY and the header say (FORMAT.md §8). */
static void print_damage(FILE *out, const struct trec_reader_stats *st)
{
	fprintf(out, "  sequence:    %" PRIu64 " chunk(s) missing, %" PRIu64 " duplicate(s) skipped, %"
		PRIu64 " out of order\n", st->seq_missing, st->seq_duplicates, st->seq_reordered);
	if (st->summaries > 1)
		fprintf(out, "  SUMMARY:     %" PRIu64 " records (one expected)\n", st->summaries);
	if (st->summaries && st->samples != st->summary_samples)
		fprintf(out, "  SUMMARY:     counts %" PRIu64 " samples, the file holds %" PRIu64 "\n",
			st->summary_samples, st->samples);
	if (st->header_unknown)
		fprintf(out, "  header:      unknown values:%s%s\n",
			st->header_unknown & 1 ? " clock_id" : "",
			st->header_unknown & 2 ? " page_size" : "");
}

static void print_recording(FILE *out, const struct rp_report *r, uint32_t rec)
{
	const struct rp_model *m = r->m;
	const struct rp_recording *rr = &m->recs[rec];
	const struct rp_strtab *st = &m->strs;

	fprintf(out, "recording %s\n", rp_str(st, rr->path));
	print_header(out, &rr->hdr);
	if (rr->nmeta) {
		fprintf(out, "  meta:\n");
		for (size_t i = 0; i < rr->nmeta; i++)
			fprintf(out, "    %-20s %s\n", rp_str(st, rr->meta_keys[i]),
				rp_str(st, rr->meta_values[i]));
	}
	if (rr->have_summary) {
		const struct trec_summary *s = &rr->summary;
		fprintf(out, "  summary:     %.3f s, %" PRIu64 " samples written, %" PRIu64 " lost",
			s->end_ns > s->start_ns ? (double)(s->end_ns - s->start_ns) / 1e9 : 0.0,
			s->samples, s->lost);
		print_end(out, s, rp_model_meta(m, rec, "mode"));
	} else {
		fprintf(out, "  summary:     none (recording did not end cleanly)\n");
	}
	fprintf(out, "  chunks:      %" PRIu64 " read, %" PRIu64 " corrupt, %" PRIu64 " skipped%s\n",
		rr->stats.chunks, rr->stats.bad_chunks, rr->stats.skipped_chunks,
		rr->truncated ? ", file truncated" : "");
	print_damage(out, &rr->stats);
	fprintf(out, "  records:     %" PRIu64 "\n", rr->stats.records);
	for (unsigned t = 0; t < 16; t++)
		if (rr->records_by_type[t])
			fprintf(out, "    %-18s %" PRIu64 "\n", trec_record_type_name((enum trec_record_type)t),
				rr->records_by_type[t]);
	fprintf(out, "  samples:     %" PRIu64 " read, %" PRIu64 " after filters", rr->samples_read,
		rr->samples_kept);
	if (rr->fixed_period)
		fprintf(out, ", one every %" PRIu64 " ns", rr->period_ns);
	else if (rr->freq_hz)
		fprintf(out, ", %" PRIu64 " Hz", rr->freq_hz);
	if (rr->cpu_max_ns >= rr->cpu_min_ns && rr->samples_read)
		fprintf(out, ", over %.3f s", (double)(rr->cpu_max_ns - rr->cpu_min_ns) / 1e9);
	fprintf(out, " (cpu-clock)\n");
	if (rr->offcpu_read || rp_model_meta(m, rec, "offcpu_min_ns"))
		fprintf(out, "  off-CPU:     %" PRIu64 " waits read, %" PRIu64 " after filters, "
			"%.6f s blocked (offcpu-time)\n", rr->offcpu_read, rr->offcpu_kept,
			(double)rr->offcpu_ns_read / 1e9);
	fprintf(out, "  kernel syms: %zu\n", rr->nksyms);
	uint64_t jt, je;
	rp_jit_counts(m->jit, rec, &jt, &je);
	if (jt)
		fprintf(out, "  JIT names:   %" PRIu64 " in %" PRIu64 " table(s) (perf maps, jitdump)\n", je, jt);

	size_t nprocs = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		nprocs += m->procs[i].rec == rec;
	fprintf(out, "  processes:   %zu\n", nprocs);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct rp_process *p = &m->procs[i];
		if (p->rec != rec)
			continue;
		uint32_t maps = p->nsnaps ? p->snaps[p->nsnaps - 1].num : 0;
		fprintf(out, "    %7u %-16s %zu mapping snapshot(s), %u mappings in the last\n", p->pid,
			rp_str(st, p->comm), p->nsnaps, maps);
	}

	if (rr->nmetrics) {
		fprintf(out, "  metrics:\n");
		for (size_t i = 0; i < rr->nmetrics; i++) {
			const struct rp_metric *mt = &rr->metrics[i];
			const char *name = rp_str(st, mt->name), *desc = "";
			if (mt->id < TREC_METRIC_COUNT) {
				name = metric_names[mt->id];
				desc = metric_descs[mt->id];
			} else {
				desc = trecord_metric_desc(mt->id, name);
			}
			fprintf(out, "    %-34s %12" PRIu64 "  %s\n", name[0] ? name : "?", mt->value, desc);
		}
	}

	struct err_count *errs;
	size_t nerrs;
	count_errors(m, rec, &errs, &nerrs);
	if (nerrs) {
		fprintf(out, "  error frames (stacks ended by the unwinder):\n");
		for (size_t i = 0; i < nerrs; i++) {
			const char *n = rp_error_name(errs[i].code);
			fprintf(out, "    %-40s %10" PRIu64 " samples in %" PRIu64 " stack group(s)\n",
				n ? n : "?", errs[i].samples, errs[i].frames);
		}
	}
	free(errs);
}

int rp_output_info(const struct rp_report *r, FILE *out)
{
	size_t with_id = 0;
	for (size_t i = 0; i < r->m->nfiles; i++)
		with_id += r->m->files[i].build_id_len > 0;
	for (uint32_t i = 0; i < r->m->nrecs; i++) {
		print_recording(out, r, i);
		fprintf(out, "\n");
	}
	fprintf(out, "files: %zu (%zu with a build-id)\n", r->m->nfiles, with_id);
	for (size_t i = 0; i < r->m->nfiles; i++) {
		const struct rp_file *f = &r->m->files[i];
		char bid[129] = "-";
		for (uint32_t k = 0; k < f->build_id_len; k++)
			snprintf(bid + 2 * k, 3, "%02x", f->build_id[k]);
		fprintf(out, "  %016" PRIx64 " %s %s\n", f->file_id, bid, rp_str(&r->m->strs, f->path));
	}
	return 0;
}
