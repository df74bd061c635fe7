// SPDX-License-Identifier: MIT
/* The sink callbacks the harness languages share; see harness_sink.h. */
#include <errno.h>
#include "harness_sink.h"

int harness_sink_set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct harness_env *e = *(struct harness_env **)ctx;

	if (e->num_py_ranges == HARNESS_MAX_PY)
		return -ENOSPC;
	e->py_ranges[e->num_py_ranges].file_id = file_id;
	e->py_ranges[e->num_py_ranges++].r = *r;
	return 0;
}

void harness_sink_del_proc(void *ctx, uint32_t pid)
{
	(void)ctx, (void)pid;
}
