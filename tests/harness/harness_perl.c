// SPDX-License-Identifier: MIT
/* The Perl part of a harness case; see harness_perl.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness_perl.h"
#include "harness_sink.h"
#include "harness_verdict.h"
#include "record/interp/perl/perl_detect.h"
#include "record/interp/perl/perl_sync.h"
#include "report/interp/perl/perl_frames.h"

struct harness_perl {
	struct harness_env *env;
	struct trec_interp_table *table;      /* live: trecord's Perl table */
	const struct trec_perl_offsets *off;  /* offline: the detected row */
	struct trec_perlframes *store;        /* descriptions, as treport holds them */
};

static int op_set_proc(void *ctx, uint32_t pid, const void *v)
{
	const struct trec_perl_proc_info *info = v;
	struct harness_env *e = ((struct harness_perl *)ctx)->env;

	e->perl_pid = pid;
	e->perl_info = *info;
	e->have_perl = true;
	return 0;
}

static int op_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	return type == TREC_REC_INTERP_CODE ? trec_perlframes_add(((struct harness_perl *)ctx)->store, b)
					    : -EINVAL;
}

struct harness_perl *harness_perl_new(struct harness_env *env)
{
	struct harness_perl *p = calloc(1, sizeof(*p));
	struct trec_interp_sink sink = { harness_sink_set_range, op_set_proc, harness_sink_del_proc,
					 op_write_blob, NULL };

	if (!p)
		return NULL;
	p->env = env;
	p->store = trec_perlframes_new();
	sink.ctx = p;
	p->table = trec_perl_table_new(&sink, false);
	if (!p->table) {
		harness_perl_free(p);
		return NULL;
	}
	return p;
}

void harness_perl_free(struct harness_perl *p)
{
	if (!p)
		return;
	trec_interp_table_free(p->table);
	trec_perlframes_free(p->store);
	free(p);
}

int harness_perl_on_mapping(struct harness_perl *p, uint32_t pid, uint64_t file_id,
			    const char *open_path, uint64_t bias)
{
	int ret = trec_interp_table_mapping(p->table, pid, file_id, open_path, bias);

	return ret < 0 ? ret : 0;
}

int harness_perl_case_mapping(struct harness_perl *p, const struct harness_case *c,
			      uint64_t file_id, const char *path, uint64_t bias)
{
	struct trec_perl_file f;
	struct trec_perl_proc_info info;
	struct trec_offset_range r;
	struct trec_tsd_info tsd;
	int err;

	if (p->off)
		return 0; /* one interpreter per process */
	err = trec_perl_detect(path, &f, NULL, 0);
	if (err)
		return err == -ENOENT ? 0 : err;
	/* trecord searches the live process's files; here, the case's. */
	err = -ENOENT;
	for (size_t i = 0; i < c->num_maps && err; i++)
		err = trec_tsd_detect_file(c->maps[i].path, &tsd);
	if (err)
		return err;
	trec_perl_proc_info_init(&f, bias, &tsd, &info);
	trec_perl_offset_range(&f, &r);
	if ((err = harness_sink_set_range(p, file_id, &r)) || (err = op_set_proc(p, c->pid, &info)))
		return err;
	p->off = f.off;
	return 0;
}

bool harness_perl_found(const struct harness_perl *p)
{
	return p && p->env->have_perl;
}

static int read_captured(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return harness_read(ctx, addr, buf, len);
}

/* What trecord's writer does for one frame, reading the captured memory. */
static int describe_captured(struct harness_perl *p, uint32_t pid, const struct trec_frame *f)
{
	struct trec_perlcode_owned code;
	struct trec_blob blob = { .file_id = f->file_id, .subtype = TREC_PERLCODE_SUBTYPE };
	uint8_t *buf;
	size_t len;
	int err = trec_perl_read_code_from(read_captured, p->env, pid, p->off, f->file_id,
					   f->addr_or_line, &code);

	if (err)
		return err;
	err = trec_perlcode_encode(&code.c, &buf, &len);
	trec_perlcode_owned_free(&code);
	if (err)
		return err;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = trec_perlframes_add(p->store, &blob);
	free(buf);
	return err;
}

static int lookup(const void *ctx, uint32_t pid, const struct trec_frame *f,
		  struct rp_interp_sym *sym)
{
	const struct harness_perl *p = ctx;
	struct trec_rec_frame rf = { f->file_id, f->addr_or_line, f->kind, f->flags };

	return trec_perlframes_lookup(p->store, pid, &rf, sym);
}

static bool is_loop(const void *ctx, const struct harness_case *c, size_t i)
{
	(void)ctx;
	return strcmp(c->frames[i].name, "Perl_runops_standard") == 0;
}

bool harness_perl_check(struct harness_perl *p, const struct harness_case *c,
			const struct trec_trace *t, size_t ng, bool live, const char *name,
			size_t *frames)
{
	const struct harness_lang l = { "perl", "Perl", "Perl_runops_standard", lookup, is_loop, p };
	struct harness_iframe pl[TREC_MAX_FRAMES];
	size_t n = 0, native = 0, runs = 0;
	int undescribed = 0;
	const char *why;

	if (live)
		trec_interp_table_trace(p->table, c->pid, t->frames, t->num_frames, NULL);
	for (unsigned i = 0; i < t->num_frames && i < TREC_MAX_FRAMES; i++) {
		const struct trec_frame *f = &t->frames[i];
		struct rp_interp_sym sym;

		if (f->flags & TREC_FRAME_F_ERROR)
			continue;
		if (f->kind != TREC_FRAME_PERL) {
			native++;
			continue;
		}
		pl[n].f = f;
		pl[n++].next_native = native;
		if (lookup(p, c->pid, f, &sym) &&
		    (live || !p->off || describe_captured(p, c->pid, f) || lookup(p, c->pid, f, &sym)))
			undescribed++;
	}
	*frames = n;
	why = undescribed ? "a Perl frame could not be described"
			  : harness_runs_verdict(&l, c, pl, n, ng, &runs);
	harness_say_verdict(&l, name, why, n, runs, "described", live);
	harness_print_iframes(&l, c, pl, n, ng);
	if (why)
		harness_print_script_stack(c);
	return !why;
}
