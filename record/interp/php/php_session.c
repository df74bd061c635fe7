// SPDX-License-Identifier: MIT
/* PHP support bound to a trecord session; see php_session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "record/bpf_loader.h"
#include "record/interp/interp_session.h"
#include "record/interp/interp_table.h"
#include "record/interp/php/php_code.h"
#include "record/interp/php/php_detect.h"
#include "record/interp/php/php_session.h"
#include "record/io/metrics.h"

struct php_pid {
	const struct trec_php_layout *layout;
};

static int detect(const char *path, void *file, struct trec_offset_range *r, char *err,
		  size_t err_len)
{
	int ret = trec_php_detect(path, file, err, err_len);

	if (!ret)
		trec_php_offset_range(file, r);
	return ret;
}

static void detected(const void *file, const char *shown)
{
	const struct trec_php_engine *e = file;

	fprintf(stderr, "trecord: php %u.%u (Zend API %u) in %s (VM loop %s.cold part)\n",
		e->layout->major, e->layout->minor, e->layout->api, shown,
		e->cold_start ? "and its " : "without a ");
}

static int set_up(struct trec_interp_table *t, uint32_t pid, const void *file,
		  const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);
	const struct trec_php_engine *e = file;
	struct trec_php_proc_info info;

	(void)open_path;
	(void)err;
	(void)err_len;
	((struct php_pid *)pd)->layout = e->layout;
	trec_php_proc_info_init(e, bias, &info);
	return sink->set_proc(sink->ctx, pid, &info);
}

static int describe(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
		    struct trec_interp_seen *seen, const struct trec_frame *f)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);

	(void)arg;
	return trec_phpcode_note(seen, sink->write_blob, sink->ctx, pid,
				 ((struct php_pid *)pd)->layout, f->file_id, (uint32_t)f->addr_or_line);
}

static const struct trec_interp_table_ops table_ops = {
	.lang = "php",
	.file_size = sizeof(struct trec_php_engine),
	.pid_size = sizeof(struct php_pid),
	.frame_kind = TREC_FRAME_PHP,
	.metric_first = TRECORD_METRIC_PHP_ENGINES,
	.detect = detect,
	.detected = detected,
	.set_up = set_up,
	.describe = describe,
};

static struct trec_interp_table *php_table_new(const struct trec_interp_sink *sink, bool verbose)
{
	return trec_interp_table_new(&table_ops, sink, NULL, verbose);
}

static int php_start(void **state, const struct trec_interp_env *env)
{
	return trec_interp_table_session_start(state, env, env->fd->php_procs, "php",
					       php_table_new);
}

const struct trec_interp_ops trec_php_interp = {
	.name = "php",
	.start = php_start,
	.stop = trec_interp_table_session_stop,
	TREC_INTERP_TABLE_ON_OPS,
};
