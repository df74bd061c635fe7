// SPDX-License-Identifier: MIT
/* Python support bound to a trecord session; see python_session.h. */
#include <errno.h>
#include <stdio.h>
#include <bpf/bpf.h>
#include "record/bpf_optional.h"
#include "record/interp/python/python_session.h"
#include "record/interp/python/python_sync.h"
#include "record/io/metrics.h"
#include "record/io/output.h"

static int set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct trec_python_session *s = ctx;
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
	struct trec_python_session *s = ctx;

	return bpf_map_update_elem(s->procs_fd, &pid, info, BPF_ANY) ? -errno : 0;
}

static void del_proc(void *ctx, uint32_t pid)
{
	struct trec_python_session *s = ctx;

	bpf_map_delete_elem(s->procs_fd, &pid);
}

static int write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct trec_python_session *s = ctx;
	struct trec_writer *w = trec_output_lock(s->out);

	return w ? trec_output_unlock(s->out, trec_write_blob(w, type, b)) : -EIO;
}

static const struct trec_py_sync_ops session_ops = {
	.set_range = set_range,
	.set_proc = set_proc,
	.del_proc = del_proc,
	.write_blob = write_blob,
};

int trec_python_session_start(struct trec_python_session *s, struct trec_output *out,
			      int procs_fd, int ranges_fd, bool verbose)
{
	s->out = out;
	s->procs_fd = procs_fd;
	s->ranges_fd = ranges_fd;
	s->py = trec_py_sync_new(&session_ops, s, verbose);
	return s->py ? 0 : -ENOMEM;
}

void trec_python_session_stop(struct trec_python_session *s)
{
	trec_py_sync_free(s->py);
	s->py = NULL;
}

int trec_python_on_mapping(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			   uint64_t bias)
{
	struct trec_python_session *s = ctx;

	return s->py ? trec_py_sync_mapping(s->py, pid, file_id, open_path, bias) : 0;
}

void trec_python_publish_stats(const struct trec_python_session *s,
			       struct trecord_counters *cnt)
{
	struct trec_py_sync_stats st;

	if (!s->py)
		return;
	trec_py_sync_get_stats(s->py, &st);
	trecord_set(cnt, TRECORD_METRIC_PY_INTERPRETERS, st.interpreters);
	trecord_set(cnt, TRECORD_METRIC_PY_UNSUPPORTED, st.unsupported);
	trecord_set(cnt, TRECORD_METRIC_PY_PIDS, st.pids);
	trecord_set(cnt, TRECORD_METRIC_PY_PID_FAILURES, st.pid_failures);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_WRITTEN, st.code_written);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_UNREADABLE, st.code_unreadable);
	trecord_set(cnt, TRECORD_METRIC_PY_CODE_STALE, st.code_stale);
}
