// SPDX-License-Identifier: MIT
/* The end of a recording file: the embedded symbols of every file its
 * samples hit, then its SUMMARY. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/archive/archive.h"
#include "record/procs/file_id.h"
#include "record/io/output.h"
#include "record/procs/pid_sync.h"
#include "record/stop_signals.h"

int trec_archive_lookup_synced(void *ctx, uint64_t file_id, struct trec_archive_file *f, char *buf,
		       size_t buflen)
{
	struct trec_pid_sync *sync = ctx;
	const struct trec_file *tf;

	/* A second stop signal: the rest of the files go without symbols. */
	if (trec_stop_hurry_now())
		return -EINTR;
	tf = trec_pid_sync_file(sync, file_id, buf, buflen);
	/* A memfd (mapped as /memfd:NAME) has no path to open it by: it goes
	 * without symbols, quietly, like a file that is not ELF. */
	if (!tf || !tf->is_elf || !strncmp(tf->path, "/memfd:", 7))
		return -1;
	f->path = buf;
	f->name = tf->path;
	f->build_id = tf->build_id_len ? tf->build_id : NULL;
	f->build_id_len = tf->build_id_len;
	return 0;
}

int trec_finish_file(struct trec_writer *w, struct trec_touched *touched, int level,
		     trec_archive_lookup_fn lookup, void *ctx, const struct trec_summary *sum,
		     struct trec_archive_totals *tot)
{
	int err = 0;

	memset(tot, 0, sizeof(*tot));
	if (touched && level != TREC_ARCHIVE_NONE)
		err = trec_archive_write_touched(w, touched, level, lookup, ctx, tot);
	if (!err && sum)
		err = trec_write_summary(w, sum);
	return err;
}

int trec_archive_write_session(struct trec_output *out, struct trec_touched *touched,
			       struct trec_pid_sync *sync, int level,
			       const struct trec_summary *sum, struct trec_archive_totals *tot)
{
	struct trec_writer *w;

	memset(tot, 0, sizeof(*tot));
	w = trec_output_lock(out);
	if (!w)
		return trec_output_error(out);
	return trec_output_unlock(out, trec_finish_file(w, sync ? touched : NULL, level,
							 trec_archive_lookup_synced, sync, sum,
							 tot));
}
