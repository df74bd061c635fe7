// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "record/archive/archive.h"
#include "record/flight/flight_file.h"
#include "record/stop_signals.h"

/* A FILE record's facts, for the archive of that file. */
struct file_ref {
	char *path;
	uint32_t build_id_len;
	uint8_t build_id[64];
};

static void files_free(struct trec_u64map *files)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; trec_u64map_next(files, &i, &k, &v);) {
		free(((struct file_ref *)v)->path);
		free(v);
	}
	trec_u64map_free(files);
}

static int note_file(struct trec_flight_file *d, const struct trec_file_info *fi)
{
	struct file_ref *f;
	int err = 0;

	if (trec_u64map_get(&d->files, fi->file_id))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(fi->path))) {
		free(f);
		return -ENOMEM;
	}
	f->build_id_len = fi->build_id_len <= sizeof(f->build_id) ? fi->build_id_len : 0;
	memcpy(f->build_id, fi->build_id, f->build_id_len);
	trec_u64map_put(&d->files, fi->file_id, f, &err);
	if (err) {
		free(f->path);
		free(f);
	}
	return err;
}

/* Each record that lands in the file: what its archives and SUMMARY need. */
static int sink(void *ctx, const struct trec_record *r)
{
	struct trec_flight_file *d = ctx;
	const struct trec_sample *s = &r->u.sample;

	switch (r->type) {
	case TREC_REC_SAMPLE:
		if (!d->samples || s->time_ns < d->first_ns)
			d->first_ns = s->time_ns;
		d->samples++;
		for (uint32_t i = 0; d->touched && i < s->num_user_frames; i++)
			trec_touched_frame(d->touched, s->pid, &s->user_frames[i]);
		return 0;
	case TREC_REC_MAPPINGS:
		return d->touched ? trec_touched_mappings(d->touched, &r->u.mappings) : 0;
	case TREC_REC_FILE:
		return d->touched ? note_file(d, &r->u.file) : 0;
	default:
		return 0;
	}
}

/* Archives from the FILE records: the sync thread's own table is still in
 * use while the recording goes on. */
static int lookup(void *ctx, uint64_t file_id, struct trec_archive_file *f, char *buf,
		  size_t buflen)
{
	struct trec_flight_file *d = ctx;
	const struct file_ref *r = trec_u64map_get(&d->files, file_id);

	/* (main thread) a second stop signal: the rest go without symbols,
	 * as trec_archive_lookup_synced does */
	if (trec_stop_hurry_now())
		return -EINTR;
	/* [vdso] and memfds have no path to open */
	if (!r || r->path[0] != '/' || !strncmp(r->path, "/memfd:", 7))
		return -1;
	snprintf(buf, buflen, "%s", r->path);
	f->path = buf;
	f->name = r->path;
	f->build_id = r->build_id_len ? r->build_id : NULL;
	f->build_id_len = r->build_id_len;
	return 0;
}

int trec_flight_file_open(struct trec_flight_file *d, const char *path, int archive_level,
			  const struct trec_flight_state *st, char *msg, size_t msglen)
{
	struct trec_header h;
	size_t n;
	int fd, err = 0;

	memset(d, 0, sizeof(*d));
	if (archive_level != TREC_ARCHIVE_NONE &&
	    !(d->touched = trec_touched_new(archive_level == TREC_ARCHIVE_SAMPLED))) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	snprintf(d->tmp, sizeof(d->tmp), "%s.partial-XXXXXX", path);
	fd = mkstemp(d->tmp);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "cannot create %s: %s", d->tmp, strerror(-err));
		d->tmp[0] = 0;
		trec_flight_file_abandon(d);
		return err;
	}
	trec_header_init_host(&h);
	errno = 0;
	d->w = trec_writer_open_fd(fd, &h, NULL);
	if (!d->w)
		err = errno ? -errno : -ENOMEM;
	if (!err && st->mf.fd >= 0) {
		const uint8_t *p = trec_memfile_chunks(&st->mf, &n);

		err = trec_writer_copy_chunks(d->w, p, n);
		if (!err)
			err = trec_flight_state_each(st, sink, d);
	}
	if (err) {
		snprintf(msg, msglen, "writing %s failed: %s", d->tmp, strerror(-err));
		trec_flight_file_abandon(d);
	}
	return err;
}

int trec_flight_file_add(struct trec_flight_file *d, struct trec_flight_state *st,
			 const struct trec_memfile *seg, uint64_t cut_ns)
{
	size_t n;
	const uint8_t *p = trec_memfile_chunks(seg, &n);
	int err = trec_writer_copy_chunks(d->w, p, n);

	return err ? err : trec_flight_state_absorb(st, seg, cut_ns, sink, d);
}

void trec_flight_timestamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char dt[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, len, "%s%02u", dt, (unsigned)(tv.tv_usec / 10000));
}

/* path.TIMESTAMP, or path.TIMESTAMP.N when two switches share a hundredth. */
static int publish(struct trec_flight_file *d, const char *path, char *name, size_t namelen)
{
	char ts[32];

	trec_flight_timestamp(ts, sizeof(ts));
	for (unsigned i = 0; i < 100; i++) {
		if (i)
			snprintf(name, namelen, "%s.%s.%u", path, ts, i);
		else
			snprintf(name, namelen, "%s.%s", path, ts);
		/* link, not rename: never replaces a file */
		if (!link(d->tmp, name)) {
			unlink(d->tmp);
			d->tmp[0] = 0;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int trec_flight_file_close(struct trec_flight_file *d, const char *path, int archive_level,
			   struct trec_summary *sum, struct trec_archive_totals *at,
			   char *name, size_t namelen)
{
	int err;

	sum->samples = d->samples;
	if (d->samples && d->first_ns < sum->start_ns)
		sum->start_ns = d->first_ns;
	err = trec_finish_file(d->w, d->touched, archive_level, lookup, d, sum, at);
	if (!err)
		err = trec_writer_close(d->w);
	else
		trec_writer_close(d->w);
	d->w = NULL;
	if (!err)
		err = publish(d, path, name, namelen);
	if (!err)
		trec_flight_file_abandon(d);
	/* else the caller keeps what the file holds (trec_flight_file_keep) */
	return err;
}

int trec_flight_file_keep(struct trec_flight_file *d, const char *path, char *name,
			  size_t namelen)
{
	int err = -ENOENT;

	/* (its last chunk may not make it: the file ends at the one before) */
	if (d->w)
		trec_writer_close(d->w);
	d->w = NULL;
	name[0] = 0;
	if (d->tmp[0] && (err = publish(d, path, name, namelen)))
		snprintf(name, namelen, "%s", d->tmp); /* stays under its partial name */
	d->tmp[0] = 0;
	trec_flight_file_abandon(d);
	return err;
}

void trec_flight_file_abandon(struct trec_flight_file *d)
{
	if (d->w)
		trec_writer_close(d->w);
	d->w = NULL;
	if (d->tmp[0])
		unlink(d->tmp);
	d->tmp[0] = 0;
	trec_touched_free(d->touched);
	d->touched = NULL;
	files_free(&d->files);
}
