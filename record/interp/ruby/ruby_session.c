// SPDX-License-Identifier: MIT
/* Ruby support bound to a trecord session: BPF maps and the output. */
#include <errno.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/ruby/ruby_session.h"
#include "record/interp/ruby/ruby_sync.h"

struct ruby_session {
	struct trec_interp_table *table; /* first: the table's on_* ops use it */
	struct trec_interp_glue glue;    /* its sink's ctx */
	struct trec_rb_sync *rb;
};

static int ruby_start(void **state, const struct trec_interp_env *env)
{
	struct ruby_session *s = calloc(1, sizeof(*s));
	struct trec_interp_sink sink;

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->ruby_procs, "ruby");
	sink = trec_interp_glue_sink(&s->glue);
	s->rb = trec_rb_sync_new(&sink, env->verbose);
	if (!s->rb) {
		free(s);
		return -ENOMEM;
	}
	s->table = trec_rb_sync_table(s->rb);
	*state = s;
	return 0;
}

static void ruby_stop(void *state)
{
	struct ruby_session *s = state;

	trec_rb_sync_free(s->rb);
	free(s);
}

const struct trec_interp_ops trec_ruby_interp = {
	.name = "ruby",
	.start = ruby_start,
	.stop = ruby_stop,
	.on_mapping = trec_interp_table_on_mapping,
	.on_trace = trec_interp_table_on_trace,
	.on_exec = trec_interp_table_on_exec,
	.on_exit = trec_interp_table_on_exit,
	.publish_stats = trec_interp_table_on_stats,
};
