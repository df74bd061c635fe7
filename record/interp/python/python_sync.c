// SPDX-License-Identifier: MIT
/* trecord's Python glue; see python_sync.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/interp_table.h"
#include "record/io/metrics.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_sync.h"
#include "record/interp/python/python_tramp.h"

struct trec_py_sync {
	struct trec_interp_table *table; /* files: trec_py_offsets; pids: trec_py_process */
	/* Synthetic file ids of trampoline arenas whose deltas were handed out. */
	uint64_t tramp_ids[8];
	size_t num_tramp_ids;
};

static int detect(const char *path, void *file, struct trec_offset_range *r, char *err,
		  size_t err_len)
{
	int ret = trec_py_detect(path, file, err, err_len);

	if (!ret)
		trec_py_offset_range(file, r);
	return ret;
}

static void detected(const void *file, const char *shown)
{
	const struct trec_py_offsets *o = file;

	fprintf(stderr, "trecord: python %u.%u.%u in %s (eval loop %s.cold part)\n", o->major,
		o->minor, o->micro, shown, o->cold_start ? "and its " : "without a ");
}

static int set_up(struct trec_interp_table *t, uint32_t pid, const void *file,
		  const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);
	struct trec_py_process *proc = pd;
	int ret;

	proc->bias = bias;
	proc->offsets = *(const struct trec_py_offsets *)file;
	snprintf(proc->path, sizeof(proc->path), "%s", open_path ? open_path : "");
	ret = trec_tsd_detect_pid((int)pid, &proc->tsd);
	if (ret) {
		snprintf(err, err_len, "libc's thread-specific data layout is unknown");
		return ret;
	}
	trec_py_proc_info_init(&proc->offsets, bias, &proc->tsd, &proc->info);
	return sink->set_proc(sink->ctx, pid, &proc->info);
}

static int describe(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
		    struct trec_interp_seen *seen, const struct trec_frame *f)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);

	(void)arg;
	return trec_pycode_note(seen, sink->write_blob, sink->ctx, pid, pd, f->file_id,
				(uint32_t)f->addr_or_line);
}

static const struct trec_interp_table_ops table_ops = {
	.lang = "python",
	.file_size = sizeof(struct trec_py_offsets),
	.pid_size = sizeof(struct trec_py_process),
	.frame_kind = TREC_FRAME_PYTHON,
	.metric_first = TRECORD_METRIC_PY_INTERPRETERS,
	.metric_pid_failures = true,
	.detect = detect,
	.detected = detected,
	.set_up = set_up,
	.describe = describe,
};

struct trec_py_sync *trec_py_sync_new(const struct trec_interp_sink *sink, bool verbose)
{
	struct trec_py_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->table = trec_interp_table_new(&table_ops, sink, s, verbose);
	if (!s->table) {
		free(s);
		return NULL;
	}
	return s;
}

void trec_py_sync_free(struct trec_py_sync *s)
{
	if (!s)
		return;
	trec_interp_table_free(s->table);
	free(s);
}

/* Hands out an arena's deltas once per synthetic id. */
static int tramp_deltas_once(struct trec_py_sync *s, const struct trec_py_offsets *o,
			     size_t period, uint64_t id, struct trec_file_deltas *deltas)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	int n;

	for (size_t i = 0; i < s->num_tramp_ids; i++)
		if (s->tramp_ids[i] == id)
			return 0;
	if (s->num_tramp_ids == sizeof(s->tramp_ids) / sizeof(s->tramp_ids[0]))
		return -ENOSPC;
	n = trec_py_tramp_rules(o->tramp, o->tramp_len, rows);
	if (n < 0 || trec_py_tramp_deltas(rows, (size_t)n, o->tramp_len, period, deltas))
		return -ENOTSUP;
	s->tramp_ids[s->num_tramp_ids++] = id;
	if (trec_interp_table_verbose(s->table))
		fprintf(stderr, "trecord: python perf trampolines: %u-byte template every %zu bytes, %zu deltas per arena\n",
			o->tramp_len, period, deltas->num);
	return 0;
}

int trec_py_sync_anon(struct trec_py_sync *s, uint32_t pid, uint64_t start, uint64_t end,
		      uint64_t *file_id, struct trec_file_deltas *deltas)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	const struct trec_py_offsets *o;
	const void *p, *file = NULL;
	size_t period = 0;
	int ret = 0;

	memset(deltas, 0, sizeof(*deltas));
	if (!s || end <= start || (end - start) % TREC_PY_TRAMP_ARENA)
		return 0;
	trec_interp_table_lock(s->table);
	p = trec_interp_table_pid(s->table, pid, &file);
	o = p ? file : NULL;
	if (!o || o->major != 3 || o->minor < 12 || !o->tramp_len ||
	    trec_py_tramp_rules(o->tramp, o->tramp_len, rows) < 0)
		goto out;
	/* Adjacent arenas may share one VMA (in 3.13 -X perf_jit, the first
	 * arena of period 16 beside later ones of 272): every one must be an
	 * arena, and all share the deltas of their periods' gcd. The VMA is
	 * the process's: at most TREC_PY_TRAMP_MAX_ARENAS are read. */
	if ((end - start) / TREC_PY_TRAMP_ARENA > TREC_PY_TRAMP_MAX_ARENAS)
		goto out;
	for (uint64_t a = start; a < end; a += TREC_PY_TRAMP_ARENA) {
		size_t pa = trec_py_tramp_probe(pid, a, o->tramp, o->tramp_len);

		period = pa ? trec_py_tramp_merge_period(period, pa, o->tramp_len) : 0;
		if (!period)
			goto out;
	}
	*file_id = trec_py_tramp_file_id(o->tramp, o->tramp_len, period);
	ret = tramp_deltas_once(s, o, period, *file_id, deltas) ? 0 : 1;
out:
	trec_interp_table_unlock(s->table);
	return ret;
}

struct trec_interp_table *trec_py_sync_table(struct trec_py_sync *s)
{
	return s->table;
}
