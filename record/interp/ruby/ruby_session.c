// SPDX-License-Identifier: MIT
/* Ruby support bound to a trecord session: BPF maps and the output. */
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/ruby/ruby_session.h"
#include "record/interp/ruby/ruby_sync.h"

static int ruby_start(void **state, const struct trec_interp_env *env)
{
	return trec_interp_table_session_start(state, env, env->fd->ruby_procs, "ruby",
					       trec_rb_table_new);
}

const struct trec_interp_ops trec_ruby_interp = {
	.name = "ruby",
	.start = ruby_start,
	.stop = trec_interp_table_session_stop,
	TREC_INTERP_TABLE_ON_OPS,
};
