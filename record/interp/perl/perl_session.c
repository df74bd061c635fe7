// SPDX-License-Identifier: MIT
/* Perl support bound to a trecord session; see perl_session.h. */
#include <errno.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/perl/perl_session.h"
#include "record/interp/perl/perl_sync.h"

struct perl_session {
	struct trec_interp_table *table; /* first: the table's on_* ops use it */
	struct trec_interp_glue glue;    /* ctx of the sync ops */
	struct trec_perl_sync *sync;
};

/* The procs map value is the backend's own type: a typed adapter. */
static int set_proc(void *ctx, uint32_t pid, const struct trec_perl_proc_info *info)
{
	return trec_interp_glue_set_proc(ctx, pid, info);
}

static const struct trec_perl_sync_ops session_ops = {
	.set_range = trec_interp_glue_set_range,
	.set_proc = set_proc,
	.del_proc = trec_interp_glue_del_proc,
	.write_blob = trec_interp_glue_write_blob,
};

static int perl_start(void **state, const struct trec_interp_env *env)
{
	struct perl_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->perl_procs, "perl");
	s->sync = trec_perl_sync_new(&session_ops, &s->glue, env->verbose);
	if (!s->sync) {
		free(s);
		return -ENOMEM;
	}
	s->table = trec_perl_sync_table(s->sync);
	*state = s;
	return 0;
}

static void perl_stop(void *state)
{
	struct perl_session *s = state;

	trec_perl_sync_free(s->sync);
	free(s);
}

const struct trec_interp_ops trec_perl_interp = {
	.name = "perl",
	.start = perl_start,
	.stop = perl_stop,
	.on_mapping = trec_interp_table_on_mapping,
	.on_trace = trec_interp_table_on_trace,
	.on_exec = trec_interp_table_on_exec,
	.on_exit = trec_interp_table_on_exit,
	.publish_stats = trec_interp_table_on_stats,
};
