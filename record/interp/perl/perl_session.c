// SPDX-License-Identifier: MIT
/* Perl support bound to a trecord session; see perl_session.h. */
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/perl/perl_session.h"
#include "record/interp/perl/perl_sync.h"

static int perl_start(void **state, const struct trec_interp_env *env)
{
	return trec_interp_table_session_start(state, env, env->fd->perl_procs, "perl",
					       trec_perl_table_new);
}

const struct trec_interp_ops trec_perl_interp = {
	.name = "perl",
	.start = perl_start,
	.stop = trec_interp_table_session_stop,
	TREC_INTERP_TABLE_ON_OPS,
};
