// SPDX-License-Identifier: MIT
/* Perl support bound to a trecord session; see perl_session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/interp/perl/perl_session.h"
#include "record/interp/perl/perl_sync.h"
#include "record/io/metrics.h"
#include "record/io/output.h"

struct perl_session {
	struct trec_perl_sync *sync;
	struct trec_output *out;
	int procs_fd, ranges_fd;
	struct trec_bpf_loader *bpf; /* loads the unwinder before its first range */
	unsigned warned;             /* its load failed: said once */
};

static int set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct perl_session *s = ctx;
	char msg[256];

	/* No route to a program that is not there: its frames stay native. */
	if (s->bpf && trec_bpf_need_unwinder(s->bpf, r->program_index, msg, sizeof(msg))) {
		if (!s->warned++)
			fprintf(stderr, "trecord: warning: no perl stacks: %s\n", msg);
		return -ENOENT;
	}
	return bpf_map_update_elem(s->ranges_fd, &file_id, r, BPF_ANY) ? -errno : 0;
}

static int set_proc(void *ctx, uint32_t pid, const struct trec_perl_proc_info *info)
{
	struct perl_session *s = ctx;

	return bpf_map_update_elem(s->procs_fd, &pid, info, BPF_ANY) ? -errno : 0;
}

static void del_proc(void *ctx, uint32_t pid)
{
	struct perl_session *s = ctx;

	bpf_map_delete_elem(s->procs_fd, &pid);
}

static int write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct perl_session *s = ctx;
	struct trec_writer *w = trec_output_lock(s->out);

	return w ? trec_output_unlock(s->out, trec_write_blob(w, type, b)) : -EIO;
}

static const struct trec_perl_sync_ops session_ops = {
	.set_range = set_range,
	.set_proc = set_proc,
	.del_proc = del_proc,
	.write_blob = write_blob,
};

static int perl_start(void **state, const struct trec_interp_env *env)
{
	struct perl_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->out = env->out;
	s->procs_fd = env->fd->perl_procs;
	s->ranges_fd = env->fd->interpreter_offsets;
	s->bpf = env->bpf;
	s->sync = trec_perl_sync_new(&session_ops, s, env->verbose);
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
