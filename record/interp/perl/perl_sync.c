// SPDX-License-Identifier: MIT
/* trecord's Perl glue; see perl_sync.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/interp_table.h"
#include "record/io/metrics.h"
#include "record/interp/perl/perl_detect.h"
#include "record/interp/perl/perl_sync.h"

struct perl_pid {
	const struct trec_perl_offsets *off; /* of the Perl it was set up for */
};

static int detect(const char *path, void *file, struct trec_offset_range *r, char *err,
		  size_t err_len)
{
	int ret = trec_perl_detect(path, file, err, err_len);

	if (!ret)
		trec_perl_offset_range(file, r);
	/* Unreadable files are not a Perl we know of. */
	return ret && ret != -ENOTSUP ? -ENOENT : ret;
}

static void detected(const void *file, const char *shown)
{
	const struct trec_perl_file *f = file;

	fprintf(stderr, "trecord: perl %u.%u.%u in %s\n", f->revision, f->version, f->subversion,
		shown);
}

static int set_up(struct trec_interp_table *t, uint32_t pid, const void *file,
		  const char *open_path, uint64_t bias, void *pd, char *err, size_t err_len)
{
	const struct trec_interp_sink *sink = trec_interp_table_sink(t);
	const struct trec_perl_file *f = file;
	struct perl_pid *p = pd;
	struct trec_perl_proc_info info;
	struct trec_tsd_info tsd;
	int ret;

	(void)open_path;
	p->off = f->off;
	ret = trec_tsd_detect_pid((int)pid, &tsd);
	if (ret) {
		snprintf(err, err_len, "libc's thread-specific data layout is unknown");
		return ret;
	}
	trec_perl_proc_info_init(f, bias, &tsd, &info);
	return sink->set_proc(sink->ctx, pid, &info);
}

/* Writes the description of one frame of pid. 1 written, or an errno. */
static int write_code(const struct trec_interp_sink *sink, uint32_t pid, const struct perl_pid *p,
		      uint64_t cop, uint64_t key)
{
	struct trec_perlcode_owned c;
	struct trec_blob b = { .file_id = cop, .subtype = TREC_PERLCODE_SUBTYPE };
	uint8_t *buf;
	size_t len;
	int err = trec_perl_read_code(pid, p->off, cop, key, &c);

	if (err)
		return err;
	err = trec_perlcode_encode(&c.c, &buf, &len);
	trec_perlcode_owned_free(&c);
	if (err)
		return err;
	b.len = (uint32_t)len;
	b.data = buf;
	err = sink->write_blob(sink->ctx, TREC_REC_INTERP_CODE, &b);
	free(buf);
	return err ? err : 1;
}

static int describe(struct trec_interp_table *t, void *arg, uint32_t pid, void *pd,
		    struct trec_interp_seen *seen, const struct trec_frame *f)
{
	struct perl_pid *p = pd;

	(void)arg;
	/* Seen before, no COP (or no memory to remember it): skip. */
	if (!p->off || trec_interp_seen_note(seen, f->file_id, f->addr_or_line))
		return 0;
	return write_code(trec_interp_table_sink(t), pid, p, f->file_id, f->addr_or_line);
}

static const struct trec_interp_table_ops table_ops = {
	.lang = "perl",
	.file_size = sizeof(struct trec_perl_file),
	.pid_size = sizeof(struct perl_pid),
	.frame_kind = TREC_FRAME_PERL,
	.metric_first = TRECORD_METRIC_PERL_INTERPRETERS,
	.metric_pid_failures = true,
	.detect = detect,
	.detected = detected,
	.set_up = set_up,
	.describe = describe,
};

struct trec_interp_table *trec_perl_table_new(const struct trec_interp_sink *sink, bool verbose)
{
	return trec_interp_table_new(&table_ops, sink, NULL, verbose);
}
