// SPDX-License-Identifier: MIT
/* trecord's Ruby glue; see ruby_sync.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/interp_read.h"
#include "record/interp/interp_table.h"
#include "record/io/metrics.h"
#include "record/interp/ruby/ruby_sync.h"

struct rb_pid {
	const struct trec_rb_offsets *offsets; /* NULL until set up */
};

/* How trec_rb_table_trace reads the process (none: the live pid). */
struct rb_reader {
	trec_rb_read_fn read;
	void *ctx;
};

static int detect(const char *path, void *file, struct trec_offset_range *r, char *err,
		  size_t err_len)
{
	int ret = trec_rb_detect(path, file, err, err_len);

	if (!ret)
		trec_rb_offset_range(file, r);
	return ret;
}

static void detected(const void *file, const char *shown)
{
	const struct trec_rb_offsets *o = file;

	(void)shown;
	fprintf(stderr, "trecord: ruby %u.%u.%u (rb_vm_exec at %#llx)\n", o->major, o->minor,
		o->micro, (unsigned long long)o->exec_start);
}

static int set_up(struct trec_interp_table *t, uint32_t pid, const void *file,
		  const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);
	struct rb_pid *p = pd;
	struct trec_rb_proc_info info;
	int ret;

	(void)open_path;
	(void)err;
	(void)err_len;
	p->offsets = NULL;
	trec_rb_proc_info_init(file, bias, &info);
	ret = sink->set_proc(sink->ctx, pid, &info);
	if (!ret)
		p->offsets = file;
	return ret;
}

/* Reads, encodes and writes one description. 1 written, negative errno. */
static int write_code(const struct trec_interp_sink *sink, uint32_t pid, const struct rb_pid *p,
		      uint64_t iseq, uint32_t object_id, const struct rb_reader *r)
{
	struct trec_rbcode_owned code;
	struct trec_blob blob = { .file_id = iseq, .subtype = TREC_RBCODE_SUBTYPE };
	int ipid = (int)pid;
	uint8_t *buf;
	size_t len;
	int err;

	bool captured = r && r->read;

	err = trec_rb_read_iseq(captured ? r->read : trec_interp_read_pid, captured ? r->ctx : &ipid,
				pid, p->offsets, iseq, object_id, &code);
	if (err)
		return err;
	err = trec_rbcode_encode(&code.c, &buf, &len);
	trec_rbcode_owned_free(&code);
	if (err)
		return err;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = sink->write_blob(sink->ctx, TREC_REC_INTERP_CODE, &blob);
	free(buf);
	return err ? err : 1;
}

static int describe(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
		    struct trec_interp_seen *seen, const struct trec_frame *f)
{
	struct rb_pid *p = pd;
	uint32_t oid = (uint32_t)f->addr_or_line;
	int ret;

	/* Remember the attempt whatever happens: a failed read is not
	 * retried for every sample. */
	if (!p->offsets || trec_interp_seen_note(seen, f->file_id, oid))
		return 0;
	ret = write_code(trec_interp_table_sink(t), pid, p, f->file_id, oid, arg);
	if (ret < 0 && trec_interp_table_verbose(t))
		fprintf(stderr, "trecord: pid %u: ruby iseq %#llx not described: %s\n", pid,
			(unsigned long long)f->file_id, strerror(-ret));
	return ret;
}

static const struct trec_interp_table_ops table_ops = {
	.lang = "ruby",
	.file_size = sizeof(struct trec_rb_offsets),
	.pid_size = sizeof(struct rb_pid),
	.frame_kind = TREC_FRAME_RUBY,
	.metric_first = TRECORD_METRIC_RB_INTERPRETERS,
	.metric_pid_failures = false,
	.detect = detect,
	.detected = detected,
	.set_up = set_up,
	.describe = describe,
};

struct trec_interp_table *trec_rb_table_new(const struct trec_interp_sink *sink, bool verbose)
{
	return trec_interp_table_new(&table_ops, sink, NULL, verbose);
}

int trec_rb_table_add_pid(struct trec_interp_table *t, uint32_t pid, uint64_t file_id,
			  const struct trec_rb_offsets *o, uint64_t bias)
{
	struct trec_offset_range r;
	int ret;

	trec_rb_offset_range(o, &r);
	ret = trec_interp_table_add_file(t, file_id, o, &r);
	if (!ret)
		ret = trec_interp_table_mapping(t, pid, file_id, NULL, bias);
	return ret < 0 ? ret : 0;
}

void trec_rb_table_trace(struct trec_interp_table *t, uint32_t pid,
			 const struct trec_frame *frames, uint32_t n, trec_rb_read_fn read, void *ctx)
{
	struct rb_reader r = { read, ctx };

	trec_interp_table_trace(t, pid, frames, n, &r);
}
