// SPDX-License-Identifier: MIT
/* The BPF-map and output glue shared by interpreter backends; see interp_session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/interp/interp.h"
#include "record/interp/interp_session.h"
#include "record/io/output.h"

void trec_interp_glue_init(struct trec_interp_glue *g, const struct trec_interp_env *env,
			   int procs_fd, const char *lang)
{
	g->out = env->out;
	g->procs_fd = procs_fd;
	g->ranges_fd = env->fd->interpreter_offsets;
	g->bpf = env->bpf;
	g->lang = lang;
	g->warned = 0;
}

int trec_interp_glue_set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct trec_interp_glue *g = ctx;
	char msg[256];
	int e;

	/* No route to a program that is not there: its frames stay native
	 * (also while it loads). */
	if (!g->bpf)
		return bpf_map_update_elem(g->ranges_fd, &file_id, r, BPF_ANY) ? -errno : 0;
	e = trec_bpf_route_when_loaded(g->bpf, r->program_index, g->ranges_fd, file_id, r,
				       sizeof(*r), msg, sizeof(msg));
	if (e && !g->warned++)
		fprintf(stderr, "trecord: warning: no %s stacks: %s\n", g->lang, msg);
	return e;
}

int trec_interp_glue_set_proc(void *ctx, uint32_t pid, const void *info)
{
	struct trec_interp_glue *g = ctx;

	return bpf_map_update_elem(g->procs_fd, &pid, info, BPF_ANY) ? -errno : 0;
}

void trec_interp_glue_del_proc(void *ctx, uint32_t pid)
{
	struct trec_interp_glue *g = ctx;

	bpf_map_delete_elem(g->procs_fd, &pid);
}

int trec_interp_glue_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct trec_interp_glue *g = ctx;
	struct trec_writer *w = trec_output_lock(g->out);

	return w ? trec_output_unlock(g->out, trec_write_blob(w, type, b)) : -EIO;
}

struct trec_interp_sink trec_interp_glue_sink(struct trec_interp_glue *g)
{
	return (struct trec_interp_sink){ trec_interp_glue_set_range, trec_interp_glue_set_proc,
					  trec_interp_glue_del_proc, trec_interp_glue_write_blob, g };
}

int trec_interp_table_session_start(void **state, const struct trec_interp_env *env,
				    int procs_fd, const char *lang,
				    struct trec_interp_table *(*make)(const struct trec_interp_sink *sink,
								      bool verbose))
{
	struct trec_interp_table_session *s = calloc(1, sizeof(*s));
	struct trec_interp_sink sink;

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, procs_fd, lang);
	sink = trec_interp_glue_sink(&s->glue);
	s->table = make(&sink, env->verbose);
	if (!s->table) {
		free(s);
		return -ENOMEM;
	}
	*state = s;
	return 0;
}

void trec_interp_table_session_stop(void *state)
{
	struct trec_interp_table_session *s = state;

	trec_interp_table_free(s->table);
	free(s);
}
