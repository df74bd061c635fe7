// SPDX-License-Identifier: MIT
/*
 * The interpreter backends' shared tables (record/interp/interp_table.c)
 * with a fake backend and sink: a file is detected once per id (ours, not
 * ours, ours but not unwindable), a pid set up once per file and bias, a
 * file entered from elsewhere routed in place, an exited pid forgotten;
 * every entry freed (ASan's leak check in the sanitizer build).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/interp/interp_table.h"
#include "unit_check.h"

struct fake_file {
	int tag;
};

struct fake_pid {
	uint64_t bias;
};

static int detects, set_ups, ranges, procs_deleted;
static int pid_result; /* what set_up says */

static int detect(const char *path, void *file, struct trec_offset_range *r, char *err,
		  size_t err_len)
{
	detects++;
	if (strstr(path, "old-interp")) {
		snprintf(err, err_len, "%s: version 1 is not supported", path);
		return -ENOTSUP;
	}
	if (!strstr(path, "interp"))
		return -ENOENT;
	((struct fake_file *)file)->tag = 7;
	r->lower1 = 0x1000;
	r->upper1 = 0x2000;
	return 0;
}

static int set_up(struct trec_interp_table *t, uint32_t pid, const void *file,
		  const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len)
{
	set_ups++;
	((struct fake_pid *)pd)->bias = bias;
	if (pid_result && pid_result != -ENOENT)
		snprintf(err, err_len, "no TSD layout");
	return pid_result;
}

static int describe(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
		    struct trec_interp_seen *seen, const struct trec_frame *f)
{
	return 1;
}

static int set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	ranges++;
	return 0;
}

static void del_proc(void *ctx, uint32_t pid)
{
	procs_deleted++;
}

static const struct trec_interp_table_ops ops = {
	.lang = "fake",
	.file_size = sizeof(struct fake_file),
	.pid_size = sizeof(struct fake_pid),
	.frame_kind = TREC_FRAME_PYTHON,
	.detect = detect,
	.set_up = set_up,
	.describe = describe,
};

static const struct trec_interp_sink sink = { .set_range = set_range, .del_proc = del_proc };

int main(void)
{
	struct trec_interp_table *t = trec_interp_table_new(&ops, &sink, NULL, false);
	struct trec_interp_stats st;
	struct trec_offset_range r = { .lower1 = 0x10, .upper1 = 0x20 };
	struct fake_file other = { .tag = 9 };
	const void *file = NULL;
	struct fake_pid *pd;

	CHECK("new", t != NULL);
	CHECK("an interpreter: detected, routed, the pid set up",
	      trec_interp_table_mapping(t, 100, 1, "/usr/bin/interp", 0x400000) == 1 &&
	      detects == 1 && ranges == 1 && set_ups == 1);
	CHECK("the same file, pid and bias again: nothing redone",
	      trec_interp_table_mapping(t, 100, 1, "/usr/bin/interp", 0x400000) == 1 &&
	      detects == 1 && set_ups == 1);
	CHECK("a second pid: set up, the file not detected again",
	      trec_interp_table_mapping(t, 101, 1, "/usr/bin/interp", 0x500000) == 1 &&
	      detects == 1 && set_ups == 2);
	CHECK("a new bias: set up again in the same entry",
	      trec_interp_table_mapping(t, 100, 1, "/usr/bin/interp", 0x600000) == 1 && set_ups == 3);
	trec_interp_table_lock(t);
	pd = trec_interp_table_pid(t, 100, &file);
	trec_interp_table_unlock(t);
	CHECK("the pid's data and its file's",
	      pd && pd->bias == 0x600000 && file && ((const struct fake_file *)file)->tag == 7);
	CHECK("not an interpreter: remembered, no set-up",
	      trec_interp_table_mapping(t, 100, 2, "/usr/lib/libc.so.6", 0) == 0 &&
	      trec_interp_table_mapping(t, 102, 2, "/usr/lib/libc.so.6", 0) == 0 && detects == 2 &&
	      set_ups == 3);
	CHECK("one we cannot unwind: remembered, no set-up",
	      trec_interp_table_mapping(t, 103, 3, "/usr/bin/old-interp", 0) == 0 &&
	      trec_interp_table_mapping(t, 103, 3, "/usr/bin/old-interp", 0) == 0 && detects == 3 &&
	      set_ups == 3);
	pid_result = -ENOENT;
	CHECK("a set-up not possible yet: 0, tried again next time",
	      trec_interp_table_mapping(t, 104, 1, "/usr/bin/interp", 0) == 0 &&
	      trec_interp_table_mapping(t, 104, 1, "/usr/bin/interp", 0) == 0 && set_ups == 5);
	pid_result = -EINVAL;
	CHECK("a failed set-up: its error",
	      trec_interp_table_mapping(t, 105, 1, "/usr/bin/interp", 0) == -EINVAL);
	pid_result = 0;
	CHECK("a file entered from elsewhere: routed",
	      trec_interp_table_add_file(t, 4, &other, &r) == 0 && ranges == 2 && detects == 3);
	other.tag = 10;
	CHECK("... again: the entry updated in place, routed again",
	      trec_interp_table_add_file(t, 4, &other, &r) == 0 && ranges == 3);
	CHECK("a pid of the entered file",
	      trec_interp_table_mapping(t, 106, 4, "/core/interp", 0) == 1 && detects == 3);
	trec_interp_table_lock(t);
	pd = trec_interp_table_pid(t, 106, &file);
	trec_interp_table_unlock(t);
	CHECK("... sees the updated file", pd && file && ((const struct fake_file *)file)->tag == 10);
	trec_interp_table_exit(t, 101);
	trec_interp_table_lock(t);
	pd = trec_interp_table_pid(t, 101, NULL);
	trec_interp_table_unlock(t);
	CHECK("an exited pid: forgotten, its procs entry deleted", !pd && procs_deleted == 1);
	trec_interp_table_get_stats(t, &st);
	printf("stats: interpreters %llu unsupported %llu pids %llu pid_failures %llu\n",
	       (unsigned long long)st.interpreters, (unsigned long long)st.unsupported,
	       (unsigned long long)st.pids, (unsigned long long)st.pid_failures);
	/* each routing counts (the entered file twice), each set-up done */
	CHECK("stats: 3 routings, 1 unsupported, 4 set-ups, 1 failure",
	      st.interpreters == 3 && st.unsupported == 1 && st.pids == 4 && st.pid_failures == 1);
	trec_interp_table_free(t);
	return failures ? 1 : 0;
}
