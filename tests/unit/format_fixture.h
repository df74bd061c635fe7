/* SPDX-License-Identifier: MIT */
/*
 * Shared by the format tests, the fuzz seed writer and the Python-reader
 * test: a fixed set of records covering every record type and the edges
 * of each field, a function writing them, and a field-by-field comparison.
 * Header-only (static) because unit tests are built one file each.
 */
#ifndef TREC_FORMAT_FIXTURE_H
#define TREC_FORMAT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trec_format.h"

/* One PASS:/FAIL: line per check (tests/run.sh counts them). */
static int fx_failures;

static inline int fx_check(int ok, const char *name)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", name);
	fflush(stdout);
	if (!ok)
		fx_failures++;
	return ok;
}

static const uint8_t fx_build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xff,
};
static const uint8_t fx_blob_data[] = { 0, 1, 2, 3, 0xff, 0x80, 0x7f, 'x', 0 };

static const struct trec_meta_entry fx_meta_entries[] = {
	{ "hostname", "testhost" },
	{ "cmdline", "./busy --arg 'with spaces' \xc3\xa9" },
	{ "freq_hz", "99" },
	{ "empty", "" },
};

static struct trec_mapping fx_mappings[] = {
	{ 0x555555554000, 0x555555556000, 0, 0x1234567890abcdefULL, 0x555555554000,
	  1234567, 1700000000123456789ULL, 8, 1, 5, "/usr/bin/busy", 20, fx_build_id },
	{ 0x7ffff7dd0000, 0x7ffff7f50000, 0x28000, 0xfedcba9876543210ULL, 0x7ffff7da8000,
	  42, 0, 259, 3, 5, "/lib/x86_64-linux-gnu/libc.so.6", 0, NULL },
	{ 0x7ffff7ff0000, 0x7ffff7ff1000, 0, 0, 0, 0, 0, 0, 0, 7, "", 0, NULL },
	{ 0, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
	  UINT32_MAX, UINT32_MAX, UINT32_MAX, "[max]", 64, NULL /* set at runtime */ },
};

static const struct trec_ksym fx_ksyms[] = {
	{ 0xffffffff81000000ULL, 'T', "_stext", "" },
	{ 0xffffffff81000010ULL, 't', "do_one_initcall", "" },
	{ 0xffffffff81234560ULL, 'T', "asm_sysvec_apic_timer_interrupt", "" },
	{ 0xffffffffc0000000ULL, 't', "ext4_file_read_iter", "ext4" },
	{ 0x1000, 'A', "unsorted_low", "" },
};

static const struct trec_metric_value fx_metrics[] = {
	{ 1, "samples", 123456 },
	{ 7, "unwind_native_err", 0 },
	{ 1000, "trecord_ringbuf_bytes", UINT64_MAX },
};

static const struct trec_rec_frame fx_kframes[] = {
	{ 0, 0xffffffff81234567ULL, 4, 0 },
	{ 0, 0xffffffff81100000ULL, 4, 2 },
	{ 0, 0xffffffff81000010ULL, 4, 2 },
};

static const char *const fx_jit_files[] = { "/app/a.js", "", "x\xc3\xa9.js" };
static const struct trec_jit_line fx_jit_lines[] = {
	{ 0x7f0000001000ULL, 1, 0 },
	{ 0x7f0000001040ULL, 7, 2 },
	{ 0, UINT32_MAX, 1 }, /* before its entry's start: a negative delta */
};
static const struct trec_jit_entry fx_jit_entries[] = {
	{ 0x7f0000001000ULL, 0x80, 1000, 0, 1, "LazyCompile:*foo /app/a.js:1", 0, 2 },
	{ 0x7f0000000800ULL, 0x40, 900, 5000, 2, "", 2, 0 },
	{ UINT64_MAX - 0x10, 0x10, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX, "edge", 2, 1 },
};
static const struct trec_jit_entry fx_perfmap_entries[] = {
	{ 0x1000, 0x10, 0, 0, 0, "a b (c)", 0, 0 },
	{ 0x1000, 0x20, 0, 0, 0, "dup", 0, 0 },
};

/* Deep user stack: filled by fx_init(). */
static struct trec_rec_frame fx_uframes[200];
static uint8_t fx_build_id64[64];

static struct trec_record fx_recs[64];
static unsigned fx_nrecs;

static inline struct trec_record *fx_add(enum trec_record_type t)
{
	struct trec_record *r = &fx_recs[fx_nrecs++];

	memset(r, 0, sizeof(*r));
	r->type = t;
	return r;
}

static inline void fx_sample(uint64_t t, uint32_t pid, uint32_t tid, const char *comm,
		      uint32_t nk, uint32_t nu, uint64_t weight)
{
	struct trec_sample *s = &fx_add(TREC_REC_SAMPLE)->u.sample;

	s->time_ns = t;
	s->pid = pid;
	s->tid = tid;
	s->cpu = tid % 7;
	s->flags = nk ? 1 : 0;
	s->weight = weight;
	strncpy(s->comm, comm, sizeof(s->comm) - 1);
	s->num_kernel_frames = nk;
	s->kernel_frames = nk ? fx_kframes : NULL;
	s->num_user_frames = nu;
	s->user_frames = nu ? fx_uframes : NULL;
}

static inline struct trec_sample *fx_last_sample(void)
{
	return &fx_recs[fx_nrecs - 1].u.sample;
}

/* Builds fx_recs: every record type, several samples sharing stacks. */
static inline void fx_init(void)
{
	struct trec_record *r;

	fx_nrecs = 0;
	for (unsigned i = 0; i < 200; i++) {
		fx_uframes[i].file_id = i < 100 ? 0x1234567890abcdefULL : 0xfedcba9876543210ULL;
		fx_uframes[i].addr = i < 100 ? 0x1100 + 37 * i : 0x28000 + 0x1000 * (200 - i);
		fx_uframes[i].kind = i == 199 ? 0 : 3;
		fx_uframes[i].flags = i == 199 ? 1 : (i ? 2 : 0);
	}
	fx_uframes[150].addr = UINT64_MAX; /* big jumps both ways */
	fx_uframes[151].addr = 0;
	for (unsigned i = 0; i < 64; i++)
		fx_build_id64[i] = (uint8_t)(i * 7 + 1);

	r = fx_add(TREC_REC_META);
	r->u.meta.num_entries = 4;
	r->u.meta.entries = fx_meta_entries;

	r = fx_add(TREC_REC_FILE);
	r->u.file = (struct trec_file_info){ 0x1234567890abcdefULL, 16384, 1234567,
		1700000000123456789ULL, 8, 1, "/usr/bin/busy", 20, fx_build_id, "busy.debug" };
	r = fx_add(TREC_REC_FILE);
	r->u.file = (struct trec_file_info){ UINT64_MAX, 0, 0, 0, 0, 0, "", 0, NULL, "" };

	r = fx_add(TREC_REC_MAPPINGS);
	r->u.mappings.time_ns = 1000;
	r->u.mappings.pid = 4242;
	r->u.mappings.num_mappings = 4;
	r->u.mappings.mappings = fx_mappings;
	fx_mappings[3].build_id = fx_build_id64;

	r = fx_add(TREC_REC_MAPPINGS); /* empty snapshot: the pid has no mappings */
	r->u.mappings.time_ns = 2000;
	r->u.mappings.pid = 1;

	for (unsigned k = TREC_PEV_FORK; k <= TREC_PEV_MMAP; k++) {
		struct trec_pid_event *e = &fx_add(TREC_REC_PID_EVENT)->u.pid_event;

		e->time_ns = 5000 + k;
		e->kind = k;
		e->pid = 4242 + k;
		e->tid = 4343 + k;
		e->parent_pid = k == TREC_PEV_FORK ? 4242 : 0;
		e->exit_code = k == TREC_PEV_EXIT ? -9 : (int32_t)k;
		strcpy(e->comm, k == TREC_PEV_COMM ? "fifteen_chars__" : "busy");
		e->filename = k == TREC_PEV_EXEC ? "/usr/bin/busy" : "";
	}

	r = fx_add(TREC_REC_KSYMS);
	r->u.ksyms.time_ns = 77;
	r->u.ksyms.num_syms = 5;
	r->u.ksyms.syms = fx_ksyms;

	r = fx_add(TREC_REC_METRICS);
	r->u.metrics.time_ns = 88;
	r->u.metrics.num_values = 3;
	r->u.metrics.values = fx_metrics;

	/* Samples: shared and distinct stacks and threads, time going back. */
	fx_sample(1000000, 4242, 4242, "busy", 3, 200, 1);
	fx_sample(1000500, 4242, 4243, "busy-worker", 3, 200, 1);
	fx_sample(1000400, 4242, 4242, "busy", 0, 200, 1);
	fx_sample(1000400, 4242, 4242, "busy", 0, 200, 3);
	fx_sample(2000000, 1, 1, "init", 2, 0, 1);
	fx_sample(0, 0, 0, "", 0, 0, 1);
	fx_sample(UINT64_MAX, UINT32_MAX, UINT32_MAX, "fifteen_chars__", 3, 10, UINT64_MAX);
	fx_sample(5, 4242, 4242, "busy", 3, 200, 1);
	/* Off-CPU waits (1.2): flag bit 1 and the time blocked. */
	fx_sample(3000000, 4242, 4243, "busy-worker", 3, 200, 1);
	fx_last_sample()->flags |= TREC_SAMPLE_F_OFFCPU;
	fx_last_sample()->offcpu_ns = 1234567;
	fx_sample(3000001, 1, 1, "init", 2, 0, 1);
	fx_last_sample()->flags |= TREC_SAMPLE_F_OFFCPU;
	fx_last_sample()->offcpu_ns = UINT64_MAX;

	static const struct trec_blob blobs[3] = {
		{ 0x1234567890abcdefULL, 1, sizeof(fx_blob_data), fx_blob_data },
		{ 0x7f0000001000ULL, 2, 0, NULL },
		{ 3, UINT32_MAX, 5, (const uint8_t *)"hello" },
	};
	for (unsigned i = 0; i < 3; i++) {
		r = fx_add((enum trec_record_type)(TREC_REC_SYMTAB + i));
		r->u.blob = blobs[i];
	}

	r = fx_add(TREC_REC_JITSYMS);
	r->u.jitsyms = (struct trec_jitsyms){ 3000000, 4242, TREC_JIT_JITDUMP, TREC_JIT_F_FILTERED, 3,
		"/home/u/jit-4242.dump", 3, fx_jit_files, 3, fx_jit_entries, 3, fx_jit_lines };
	r = fx_add(TREC_REC_JITSYMS);
	r->u.jitsyms = (struct trec_jitsyms){ 100, 1, TREC_JIT_PERF_MAP, 0, 0, "/tmp/perf-1.map",
		0, NULL, 2, fx_perfmap_entries, 0, NULL };
	r = fx_add(TREC_REC_JITSYMS); /* empty, and a source this reader does not know */
	r->u.jitsyms = (struct trec_jitsyms){ UINT64_MAX, UINT32_MAX, 99, UINT32_MAX, UINT32_MAX, "",
		0, NULL, 0, NULL, 0, NULL };

	r = fx_add(TREC_REC_SUMMARY);
	r->u.summary = (struct trec_summary){ 1000, 3000001, 10, 3, -1, 5 };
}

/* Writes fx_recs[from, to); 0 or the first writer error. */
static inline int fx_write(struct trec_writer *w, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++) {
		const struct trec_record *r = &fx_recs[i];
		int err;

		switch (r->type) {
		case TREC_REC_META: err = trec_write_meta(w, &r->u.meta); break;
		case TREC_REC_SAMPLE: err = trec_write_sample(w, &r->u.sample); break;
		case TREC_REC_MAPPINGS: err = trec_write_mappings(w, &r->u.mappings); break;
		case TREC_REC_PID_EVENT: err = trec_write_pid_event(w, &r->u.pid_event); break;
		case TREC_REC_FILE: err = trec_write_file(w, &r->u.file); break;
		case TREC_REC_KSYMS: err = trec_write_ksyms(w, &r->u.ksyms); break;
		case TREC_REC_METRICS: err = trec_write_metrics(w, &r->u.metrics); break;
		case TREC_REC_SUMMARY: err = trec_write_summary(w, &r->u.summary); break;
		case TREC_REC_JITSYMS: err = trec_write_jitsyms(w, &r->u.jitsyms); break;
		default: err = trec_write_blob(w, r->type, &r->u.blob); break;
		}
		if (err)
			return err;
	}
	return 0;
}

static inline int fx_str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static inline int fx_bytes_eq(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	return alen == blen && (!alen || memcmp(a, b, alen) == 0);
}

static inline int fx_frames_eq(const struct trec_rec_frame *a, const struct trec_rec_frame *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i].file_id != b[i].file_id || a[i].addr != b[i].addr ||
		    a[i].kind != b[i].kind || a[i].flags != b[i].flags)
			return 0;
	return 1;
}

#define FX_CHECK(cond)                                                  \
	do {                                                            \
		if (!(cond)) {                                          \
			snprintf(why, whylen, "%s: %s", trec_record_type_name(e->type), #cond); \
			return 0;                                       \
		}                                                       \
	} while (0)

/* 1 if got equals the expected record e in every field; else why is set. */
static inline int fx_equal(const struct trec_record *e, const struct trec_record *got,
		    char *why, size_t whylen)
{
	FX_CHECK(e->type == got->type);
	switch (e->type) {
	case TREC_REC_META: {
		const struct trec_meta *a = &e->u.meta, *b = &got->u.meta;

		FX_CHECK(a->num_entries == b->num_entries);
		for (uint32_t i = 0; i < a->num_entries; i++) {
			FX_CHECK(fx_str_eq(a->entries[i].key, b->entries[i].key));
			FX_CHECK(fx_str_eq(a->entries[i].value, b->entries[i].value));
		}
		break;
	}
	case TREC_REC_SAMPLE: {
		const struct trec_sample *a = &e->u.sample, *b = &got->u.sample;

		FX_CHECK(a->time_ns == b->time_ns);
		FX_CHECK(a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu);
		FX_CHECK(a->flags == b->flags);
		FX_CHECK((a->weight ? a->weight : 1) == b->weight);
		FX_CHECK(a->offcpu_ns == b->offcpu_ns);
		FX_CHECK(strncmp(a->comm, b->comm, 15) == 0 && b->comm[15] == 0);
		FX_CHECK(a->num_kernel_frames == b->num_kernel_frames);
		FX_CHECK(a->num_user_frames == b->num_user_frames);
		FX_CHECK(fx_frames_eq(a->kernel_frames, b->kernel_frames, a->num_kernel_frames));
		FX_CHECK(fx_frames_eq(a->user_frames, b->user_frames, a->num_user_frames));
		break;
	}
	case TREC_REC_MAPPINGS: {
		const struct trec_mapping_snapshot *a = &e->u.mappings, *b = &got->u.mappings;

		FX_CHECK(a->time_ns == b->time_ns && a->pid == b->pid);
		FX_CHECK(a->num_mappings == b->num_mappings);
		for (uint32_t i = 0; i < a->num_mappings; i++) {
			const struct trec_mapping *x = &a->mappings[i], *y = &b->mappings[i];

			FX_CHECK(x->start == y->start && x->end == y->end);
			FX_CHECK(x->file_offset == y->file_offset && x->file_id == y->file_id);
			FX_CHECK(x->bias == y->bias && x->inode == y->inode);
			FX_CHECK(x->mtime_ns == y->mtime_ns);
			FX_CHECK(x->dev_major == y->dev_major && x->dev_minor == y->dev_minor);
			FX_CHECK(x->prot == y->prot);
			FX_CHECK(fx_str_eq(x->path, y->path));
			FX_CHECK(fx_bytes_eq(x->build_id, x->build_id_len, y->build_id, y->build_id_len));
		}
		break;
	}
	case TREC_REC_PID_EVENT: {
		const struct trec_pid_event *a = &e->u.pid_event, *b = &got->u.pid_event;

		FX_CHECK(a->time_ns == b->time_ns && a->kind == b->kind);
		FX_CHECK(a->pid == b->pid && a->tid == b->tid && a->parent_pid == b->parent_pid);
		FX_CHECK(a->exit_code == b->exit_code);
		FX_CHECK(strncmp(a->comm, b->comm, 15) == 0 && b->comm[15] == 0);
		FX_CHECK(fx_str_eq(a->filename, b->filename));
		break;
	}
	case TREC_REC_FILE: {
		const struct trec_file_info *a = &e->u.file, *b = &got->u.file;

		FX_CHECK(a->file_id == b->file_id && a->size == b->size);
		FX_CHECK(a->inode == b->inode && a->mtime_ns == b->mtime_ns);
		FX_CHECK(a->dev_major == b->dev_major && a->dev_minor == b->dev_minor);
		FX_CHECK(fx_str_eq(a->path, b->path));
		FX_CHECK(fx_bytes_eq(a->build_id, a->build_id_len, b->build_id, b->build_id_len));
		FX_CHECK(fx_str_eq(a->debuglink, b->debuglink));
		break;
	}
	case TREC_REC_KSYMS: {
		const struct trec_ksyms *a = &e->u.ksyms, *b = &got->u.ksyms;

		FX_CHECK(a->time_ns == b->time_ns && a->num_syms == b->num_syms);
		for (uint32_t i = 0; i < a->num_syms; i++) {
			FX_CHECK(a->syms[i].addr == b->syms[i].addr);
			FX_CHECK(a->syms[i].type == b->syms[i].type);
			FX_CHECK(fx_str_eq(a->syms[i].name, b->syms[i].name));
			FX_CHECK(fx_str_eq(a->syms[i].module, b->syms[i].module));
		}
		break;
	}
	case TREC_REC_METRICS: {
		const struct trec_metrics *a = &e->u.metrics, *b = &got->u.metrics;

		FX_CHECK(a->time_ns == b->time_ns && a->num_values == b->num_values);
		for (uint32_t i = 0; i < a->num_values; i++) {
			FX_CHECK(a->values[i].id == b->values[i].id);
			FX_CHECK(fx_str_eq(a->values[i].name, b->values[i].name));
			FX_CHECK(a->values[i].value == b->values[i].value);
		}
		break;
	}
	case TREC_REC_SUMMARY: {
		const struct trec_summary *a = &e->u.summary, *b = &got->u.summary;

		FX_CHECK(a->start_ns == b->start_ns && a->end_ns == b->end_ns);
		FX_CHECK(a->samples == b->samples && a->lost == b->lost);
		FX_CHECK(a->exit_status == b->exit_status && a->flags == b->flags);
		break;
	}
	case TREC_REC_JITSYMS: {
		const struct trec_jitsyms *a = &e->u.jitsyms, *b = &got->u.jitsyms;

		FX_CHECK(a->time_ns == b->time_ns && a->pid == b->pid && a->source == b->source);
		FX_CHECK(a->flags == b->flags && a->bad == b->bad && fx_str_eq(a->path, b->path));
		FX_CHECK(a->num_files == b->num_files && a->num_entries == b->num_entries);
		FX_CHECK(a->num_lines == b->num_lines);
		for (uint32_t i = 0; i < a->num_files; i++)
			FX_CHECK(fx_str_eq(a->files[i], b->files[i]));
		for (uint32_t i = 0; i < a->num_entries; i++) {
			const struct trec_jit_entry *x = &a->entries[i], *y = &b->entries[i];

			FX_CHECK(x->start == y->start && x->size == y->size);
			FX_CHECK(x->load_ns == y->load_ns && x->end_ns == y->end_ns);
			FX_CHECK(x->code_index == y->code_index && fx_str_eq(x->name, y->name));
			FX_CHECK(x->first_line == y->first_line && x->num_lines == y->num_lines);
		}
		for (uint32_t i = 0; i < a->num_lines; i++) {
			FX_CHECK(a->lines[i].addr == b->lines[i].addr);
			FX_CHECK(a->lines[i].line == b->lines[i].line && a->lines[i].file == b->lines[i].file);
		}
		break;
	}
	default: {
		const struct trec_blob *a = &e->u.blob, *b = &got->u.blob;

		FX_CHECK(a->file_id == b->file_id && a->subtype == b->subtype);
		FX_CHECK(fx_bytes_eq(a->data, a->len, b->data, b->len));
		break;
	}
	}
	return 1;
}

/* Writes fx_recs to an in-memory file; returns a malloc'd copy of its bytes. */
static inline uint8_t *fx_write_mem(const struct trec_writer_opts *opts, size_t *len)
{
	struct trec_header h;
	struct trec_writer *w;
	int fd = memfd_create("trec-fixture", 0), wfd;
	uint8_t *buf = NULL;
	off_t size;

	if (fd < 0)
		return NULL;
	wfd = dup(fd);
	trec_header_init_host(&h);
	w = trec_writer_open_fd(wfd, &h, opts);
	if (!w)
		goto out;
	int err = fx_write(w, 0, fx_nrecs);
	if (trec_writer_close(w) || err)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	buf = malloc(size > 0 ? (size_t)size : 1);
	if (buf && pread(fd, buf, (size_t)size, 0) != size) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)size;
out:
	close(fd);
	return buf;
}

#endif /* TREC_FORMAT_FIXTURE_H */
