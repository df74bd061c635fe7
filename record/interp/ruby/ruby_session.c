// SPDX-License-Identifier: MIT
/* Ruby support bound to a trecord session: BPF maps and the output. */
#include <errno.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/ruby/ruby_session.h"
#include "record/interp/ruby/ruby_sync.h"
#include "record/io/metrics.h"

struct ruby_session {
	struct trec_interp_glue glue; /* ctx of the sync ops */
	struct trec_rb_sync *rb;
};

/* The procs map value is the backend's own type: a typed adapter. */
static int set_proc(void *ctx, uint32_t pid, const struct trec_rb_proc_info *info)
{
	return trec_interp_glue_set_proc(ctx, pid, info);
}

static const struct trec_rb_sync_ops session_ops = {
	.set_range = trec_interp_glue_set_range,
	.set_proc = set_proc,
	.del_proc = trec_interp_glue_del_proc,
	.write_blob = trec_interp_glue_write_blob,
};

static int ruby_start(void **state, const struct trec_interp_env *env)
{
	struct ruby_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->ruby_procs, "ruby");
	s->rb = trec_rb_sync_new(&session_ops, &s->glue, env->verbose);
	if (!s->rb) {
		free(s);
		return -ENOMEM;
	}
	*state = s;
	return 0;
}

static void ruby_stop(void *state)
{
	struct ruby_session *s = state;

	trec_rb_sync_free(s->rb);
	free(s);
}

static int ruby_mapping(void *state, uint32_t pid, uint64_t file_id, const char *open_path,
			uint64_t bias)
{
	return trec_rb_sync_mapping(((struct ruby_session *)state)->rb, pid, file_id, open_path,
				    bias);
}

static void ruby_trace(void *state, uint32_t pid, const struct trec_frame *frames, uint32_t n)
{
	trec_rb_sync_trace(((struct ruby_session *)state)->rb, pid, frames, n, NULL, NULL);
}

static void ruby_exec(void *state, uint32_t pid)
{
	trec_rb_sync_exec(((struct ruby_session *)state)->rb, pid);
}

static void ruby_exit(void *state, uint32_t pid)
{
	trec_rb_sync_remove(((struct ruby_session *)state)->rb, pid);
}

static void ruby_stats(void *state, struct trecord_counters *cnt)
{
	struct trec_rb_sync_stats st;

	trec_rb_sync_get_stats(((struct ruby_session *)state)->rb, &st);
	trecord_set(cnt, TRECORD_METRIC_RB_INTERPRETERS, st.interpreters);
	trecord_set(cnt, TRECORD_METRIC_RB_UNSUPPORTED, st.unsupported);
	trecord_set(cnt, TRECORD_METRIC_RB_PIDS, st.pids);
	trecord_set(cnt, TRECORD_METRIC_RB_CODE_WRITTEN, st.code_written);
	trecord_set(cnt, TRECORD_METRIC_RB_CODE_UNREADABLE, st.code_unreadable);
	trecord_set(cnt, TRECORD_METRIC_RB_CODE_STALE, st.code_stale);
}

const struct trec_interp_ops trec_ruby_interp = {
	.name = "ruby",
	.start = ruby_start,
	.stop = ruby_stop,
	.on_mapping = ruby_mapping,
	.on_trace = ruby_trace,
	.on_exec = ruby_exec,
	.on_exit = ruby_exit,
	.publish_stats = ruby_stats,
};
