// SPDX-License-Identifier: MIT
/* Python support bound to a trecord session; see python_session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/interp/python/python_session.h"
#include "record/interp/python/python_sync.h"
#include "record/interp/python/python_tramp.h"
#include "record/io/metrics.h"
#include "record/io/output.h"

struct python_session {
	struct trec_py_sync *py;
	struct trec_output *out;
	int procs_fd, ranges_fd;
	struct trec_bpf_loader *bpf; /* loads the unwinder before its first range */
	unsigned warned;             /* its load failed: said once */
};

static int set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct python_session *s = ctx;
	char msg[256];

	/* No route to a program that is not there: its frames stay native. */
	if (s->bpf && trec_bpf_need_unwinder(s->bpf, r->program_index, msg, sizeof(msg))) {
		if (!s->warned++)
			fprintf(stderr, "trecord: warning: no python stacks: %s\n", msg);
		return -ENOENT;
	}
	return bpf_map_update_elem(s->ranges_fd, &file_id, r, BPF_ANY) ? -errno : 0;
}

static int set_proc(void *ctx, uint32_t pid, const struct trec_py_proc_info *info)
{
	struct python_session *s = ctx;

	return bpf_map_update_elem(s->procs_fd, &pid, info, BPF_ANY) ? -errno : 0;
}

static void del_proc(void *ctx, uint32_t pid)
{
	struct python_session *s = ctx;

	bpf_map_delete_elem(s->procs_fd, &pid);
}

static int write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct python_session *s = ctx;
	struct trec_writer *w = trec_output_lock(s->out);

	return w ? trec_output_unlock(s->out, trec_write_blob(w, type, b)) : -EIO;
}

static const struct trec_py_sync_ops session_ops = {
	.set_range = set_range,
	.set_proc = set_proc,
	.del_proc = del_proc,
	.write_blob = write_blob,
};

static int python_start(void **state, const struct trec_interp_env *env)
{
	struct python_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->out = env->out;
	s->procs_fd = env->fd->py_procs;
	s->ranges_fd = env->fd->interpreter_offsets;
	s->bpf = env->bpf;
	s->py = trec_py_sync_new(&session_ops, s, env->verbose);
	if (!s->py) {
		free(s);
		return -ENOMEM;
	}
	*state = s;
	return 0;
}

static void python_stop(void *state)
{
	struct python_session *s = state;

	trec_py_sync_free(s->py);
	free(s);
}

static int python_mapping(void *state, uint32_t pid, uint64_t file_id, const char *open_path,
			  uint64_t bias)
{
	struct python_session *s = state;

	return trec_py_sync_mapping(s->py, pid, file_id, open_path, bias);
}

static uint64_t python_anon(void *state, uint32_t pid, uint64_t start, uint64_t end,
			    uint64_t *file_id, struct trec_file_deltas *d, const char **what)
{
	struct python_session *s = state;

	if (trec_py_sync_anon(s->py, pid, start, end, file_id, d) != 1)
		return 0;
	*what = "[python perf trampolines]";
	return TREC_PY_TRAMP_ARENA;
}

static void python_trace(void *state, uint32_t pid, const struct trec_frame *frames, uint32_t n)
{
	trec_py_sync_trace(((struct python_session *)state)->py, pid, frames, n);
}

static void python_exec(void *state, uint32_t pid)
{
	trec_py_sync_exec(((struct python_session *)state)->py, pid);
}

static void python_exit(void *state, uint32_t pid)
{
	trec_py_sync_remove(((struct python_session *)state)->py, pid);
}

static void python_stats(void *state, struct trecord_counters *cnt)
{
	struct python_session *s = state;
	struct trec_py_sync_stats st;

	trec_py_sync_get_stats(s->py, &st);
	trecord_set(cnt, TRECORD_METRIC_PY_INTERPRETERS, st.interpreters);
	trecord_set(cnt, TRECORD_METRIC_PY_UNSUPPORTED, st.unsupported);
	trecord_set(cnt, TRECORD_METRIC_PY_PIDS, st.pids);
	trecord_set(cnt, TRECORD_METRIC_PY_PID_FAILURES, st.pid_failures);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_WRITTEN, st.code_written);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_UNREADABLE, st.code_unreadable);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_STALE, st.code_stale);
}

const struct trec_interp_ops trec_python_interp = {
	.name = "python",
	.start = python_start,
	.stop = python_stop,
	.on_mapping = python_mapping,
	.on_anon = python_anon,
	.on_trace = python_trace,
	.on_exec = python_exec,
	.on_exit = python_exit,
	.publish_stats = python_stats,
};
