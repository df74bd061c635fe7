// SPDX-License-Identifier: MIT
/* The Ruby part of a harness case; see harness_ruby.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "harness_ruby.h"
#include "harness_sink.h"
#include "record/interp/ruby/ruby_sync.h"
#include "report/interp/ruby/ruby_frames.h"

struct harness_rb {
	struct harness_env *env;
	struct trec_interp_table *table; /* trecord's Ruby table */
	void *store; /* INTERP_CODE records, as treport holds them */
};

static int op_set_proc(void *ctx, uint32_t pid, const void *v)
{
	const struct trec_rb_proc_info *info = v;
	struct harness_env *e = ((struct harness_rb *)ctx)->env;

	for (size_t i = 0; i < e->num_rb_procs; i++)
		if (e->rb_procs[i].pid == pid) {
			e->rb_procs[i].info = *info;
			return 0;
		}
	if (e->num_rb_procs == HARNESS_MAX_PY)
		return -ENOSPC;
	e->rb_procs[e->num_rb_procs].pid = pid;
	e->rb_procs[e->num_rb_procs++].info = *info;
	return 0;
}

static int op_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	return type == TREC_REC_INTERP_CODE
		       ? rp_ruby_interp.add(((struct harness_rb *)ctx)->store, b)
		       : -EINVAL;
}

struct harness_rb *harness_rb_new(struct harness_env *env)
{
	struct harness_rb *r = calloc(1, sizeof(*r));
	struct trec_interp_sink sink = { harness_sink_set_range, op_set_proc, harness_sink_del_proc,
					 op_write_blob, NULL };

	if (!r)
		return NULL;
	r->env = env;
	r->store = rp_ruby_interp.new_store();
	sink.ctx = r;
	r->table = trec_rb_table_new(&sink, false);
	if (!r->store || !r->table) {
		harness_rb_free(r);
		return NULL;
	}
	return r;
}

void harness_rb_free(struct harness_rb *r)
{
	if (!r)
		return;
	trec_interp_table_free(r->table);
	if (r->store)
		rp_ruby_interp.free_store(r->store);
	free(r);
}

int harness_rb_on_mapping(struct harness_rb *r, uint32_t pid, uint64_t file_id,
			  const char *open_path, uint64_t bias)
{
	return trec_interp_table_mapping(r->table, pid, file_id, open_path, bias);
}

int harness_rb_case_mapping(struct harness_rb *r, uint32_t pid, uint64_t file_id,
			    const char *path, uint64_t bias)
{
	struct trec_rb_offsets o;
	int err;

	if (r->env->num_rb_procs)
		return 0; /* one interpreter per process */
	err = trec_rb_detect(path, &o, NULL, 0);
	if (err)
		return err == -ENOENT ? 0 : err;
	return trec_rb_table_add_pid(r->table, pid, file_id, &o, bias);
}

static int read_captured(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return harness_read(ctx, addr, buf, len);
}

int harness_rb_describe(struct harness_rb *r, uint32_t pid, const struct trec_trace *t,
			bool live)
{
	int missing = 0;

	trec_rb_table_trace(r->table, pid, t->frames, t->num_frames, live ? NULL : read_captured,
			   r->env);
	for (unsigned i = 0; i < t->num_frames && i < TREC_MAX_FRAMES; i++) {
		struct trec_pyframe_sym sym;

		if (t->frames[i].kind == TREC_FRAME_RUBY && !(t->frames[i].flags & TREC_FRAME_F_ERROR))
			missing += harness_rb_lookup(r, pid, &t->frames[i], &sym) != 0;
	}
	return missing;
}

int harness_rb_lookup(const struct harness_rb *r, uint32_t pid, const struct trec_frame *f,
		      struct trec_pyframe_sym *sym)
{
	struct trec_rec_frame rf = { f->file_id, f->addr_or_line, f->kind, f->flags };
	struct rp_interp_sym s;
	int err = rp_ruby_interp.lookup(r->store, pid, &rf, &s);

	if (!err)
		*sym = (struct trec_pyframe_sym){ s.function, s.file, s.line };
	return err;
}

bool harness_rb_found(const struct harness_rb *r)
{
	return r->env->num_rb_procs > 0;
}
