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
	.on_mapping = trec_interp_table_on_mapping,
	.on_trace = trec_interp_table_on_trace,
	.on_exec = trec_interp_table_on_exec,
	.on_exit = trec_interp_table_on_exit,
	.publish_stats = trec_interp_table_on_stats,
};
