// SPDX-License-Identifier: MIT
/* The end of a recording: the embedded symbols of every file samples hit. */
#include <stdio.h>
#include <string.h>

#include "record/archive/archive.h"
#include "record/procs/file_id.h"
#include "record/session.h"
#include "record/stop_signals.h"

static int lookup_file(void *ctx, uint64_t file_id, struct trec_archive_file *f, char *buf,
		       size_t buflen)
{
	struct trec_session *s = ctx;
	const struct trec_file *tf;

	/* A second stop signal: the rest of the files go without symbols. */
	trec_stop_signals_wait(0);
	if (trec_stop_hurry())
		return -1;
	tf = trec_pid_sync_file(s->sync, file_id, buf, buflen);
	if (!tf || !tf->is_elf)
		return -1;
	f->path = buf;
	f->name = tf->path;
	f->build_id = tf->build_id_len ? tf->build_id : NULL;
	f->build_id_len = tf->build_id_len;
	return 0;
}

int trec_session_write_archives(struct trec_session *s, struct trec_archive_totals *tot)
{
	struct trec_writer *w;

	memset(tot, 0, sizeof(*tot));
	if (!s->touched || !s->sync || s->opt->archive_level == TREC_ARCHIVE_NONE)
		return 0;
	w = trec_output_lock(&s->out);
	if (!w)
		return trec_output_error(&s->out);
	return trec_output_unlock(&s->out,
				  trec_archive_write_touched(w, s->touched, s->opt->archive_level,
							     lookup_file, s, tot));
}
