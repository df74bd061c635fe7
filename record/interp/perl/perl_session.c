// SPDX-License-Identifier: MIT
/* Perl support bound to a trecord session; see perl_session.h. */
#include <errno.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/perl/perl_session.h"
#include "record/interp/perl/perl_sync.h"
#include "record/io/metrics.h"

struct perl_session {
	struct trec_interp_glue glue; /* ctx of the sync ops */
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
	*state = s;
	return 0;
}

static void perl_stop(void *state)
{
	struct perl_session *s = state;

	trec_perl_sync_free(s->sync);
	free(s);
}

static int perl_mapping(void *state, uint32_t pid, uint64_t file_id, const char *open_path,
			uint64_t bias)
{
	return trec_perl_sync_mapping(((struct perl_session *)state)->sync, pid, file_id,
				      open_path, bias);
}

static void perl_trace(void *state, uint32_t pid, const struct trec_frame *frames, uint32_t n)
{
	trec_perl_sync_trace(((struct perl_session *)state)->sync, pid, frames, n);
}

static void perl_exec(void *state, uint32_t pid)
{
	trec_perl_sync_exec(((struct perl_session *)state)->sync, pid);
}

static void perl_exit(void *state, uint32_t pid)
{
	trec_perl_sync_remove(((struct perl_session *)state)->sync, pid);
}

static void perl_stats(void *state, struct trecord_counters *cnt)
{
	struct trec_perl_sync_stats st;

	trec_perl_sync_get_stats(((struct perl_session *)state)->sync, &st);
	trecord_set(cnt, TRECORD_METRIC_PERL_INTERPRETERS, st.interpreters);
	trecord_set(cnt, TRECORD_METRIC_PERL_UNSUPPORTED, st.unsupported);
	trecord_set(cnt, TRECORD_METRIC_PERL_PIDS, st.pids);
	trecord_set(cnt, TRECORD_METRIC_PERL_PID_FAILURES, st.pid_failures);
	trecord_set(cnt, TRECORD_METRIC_PERL_CODE_WRITTEN, st.code_written);
	trecord_set(cnt, TRECORD_METRIC_PERL_CODE_UNREADABLE, st.code_unreadable);
	trecord_set(cnt, TRECORD_METRIC_PERL_CODE_STALE, st.code_stale);
}

const struct trec_interp_ops trec_perl_interp = {
	.name = "perl",
	.start = perl_start,
	.stop = perl_stop,
	.on_mapping = perl_mapping,
	.on_trace = perl_trace,
	.on_exec = perl_exec,
	.on_exit = perl_exit,
	.publish_stats = perl_stats,
};
