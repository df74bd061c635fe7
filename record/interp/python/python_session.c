// SPDX-License-Identifier: MIT
/* Python support bound to a trecord session; see python_session.h. */
#include <errno.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/python/python_session.h"
#include "record/interp/python/python_sync.h"
#include "record/interp/python/python_tramp.h"

struct python_session {
	struct trec_interp_table *table; /* first: the table's on_* ops use it */
	struct trec_interp_glue glue;    /* its sink's ctx */
	struct trec_py_sync *py;
};

static int python_start(void **state, const struct trec_interp_env *env)
{
	struct python_session *s = calloc(1, sizeof(*s));
	struct trec_interp_sink sink;

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->py_procs, "python");
	sink = trec_interp_glue_sink(&s->glue);
	s->py = trec_py_sync_new(&sink, env->verbose);
	if (!s->py) {
		free(s);
		return -ENOMEM;
	}
	s->table = trec_py_sync_table(s->py);
	*state = s;
	return 0;
}

static void python_stop(void *state)
{
	struct python_session *s = state;

	trec_py_sync_free(s->py);
	free(s);
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

const struct trec_interp_ops trec_python_interp = {
	.name = "python",
	.start = python_start,
	.stop = python_stop,
	.on_anon = python_anon,
	TREC_INTERP_TABLE_ON_OPS,
};
