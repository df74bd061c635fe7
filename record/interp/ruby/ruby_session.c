// SPDX-License-Identifier: MIT
/* Ruby support bound to a trecord session: BPF maps and the output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/interp/ruby/ruby_session.h"
#include "record/interp/ruby/ruby_sync.h"
#include "record/io/metrics.h"
#include "record/io/output.h"

struct ruby_session {
	struct trec_rb_sync *rb;
	struct trec_output *out;
	int procs_fd, ranges_fd;
	struct trec_bpf_loader *bpf; /* loads the unwinder before its first range */
	unsigned warned;             /* its load failed: said once */
};

static int set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct ruby_session *s = ctx;
	char msg[256];

	/* No route to a program that is not there: its frames stay native. */
	if (s->bpf && trec_bpf_need_unwinder(s->bpf, r->program_index, msg, sizeof(msg))) {
		if (!s->warned++)
			fprintf(stderr, "trecord: warning: no ruby stacks: %s\n", msg);
		return -ENOENT;
	}
	return bpf_map_update_elem(s->ranges_fd, &file_id, r, BPF_ANY) ? -errno : 0;
}

static int set_proc(void *ctx, uint32_t pid, const struct trec_rb_proc_info *info)
{
	struct ruby_session *s = ctx;

	return bpf_map_update_elem(s->procs_fd, &pid, info, BPF_ANY) ? -errno : 0;
}

static void del_proc(void *ctx, uint32_t pid)
{
	bpf_map_delete_elem(((struct ruby_session *)ctx)->procs_fd, &pid);
}

static int write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct ruby_session *s = ctx;
	struct trec_writer *w = trec_output_lock(s->out);

	return w ? trec_output_unlock(s->out, trec_write_blob(w, type, b)) : -EIO;
}

static const struct trec_rb_sync_ops session_ops = {
	.set_range = set_range,
	.set_proc = set_proc,
	.del_proc = del_proc,
	.write_blob = write_blob,
};

static int ruby_start(void **state, const struct trec_interp_env *env)
{
	struct ruby_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->out = env->out;
	s->procs_fd = env->fd->ruby_procs;
	s->ranges_fd = env->fd->interpreter_offsets;
	s->bpf = env->bpf;
	s->rb = trec_rb_sync_new(&session_ops, s, env->verbose);
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
