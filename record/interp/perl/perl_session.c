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
	struct trec_interp_glue glue;    /* its sink's ctx */
	struct trec_perl_sync *sync;
};

static int perl_start(void **state, const struct trec_interp_env *env)
{
	struct perl_session *s = calloc(1, sizeof(*s));
	struct trec_interp_sink sink;

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->perl_procs, "perl");
	sink = trec_interp_glue_sink(&s->glue);
	s->sync = trec_perl_sync_new(&sink, env->verbose);
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
