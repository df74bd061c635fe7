// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/io/output.h"

/* Chunks of 2 MiB, not the format's default 1 MiB: each chunk stores its
 * stacks again, and at -a -F 20000 (1.8 MB of records a second, two
 * thirds of them stacks) 1 MiB chunks ended twice a second. 2 MiB chunks
 * end at the main loop's 1 s flush instead: 4% less CPU over 25 s, files
 * 5% smaller. At lower rates the flush ends chunks first either way. */
#define OUTPUT_CHUNK_BYTES (2u << 20)

int trec_output_open(struct trec_output *o, const char *path, bool force,
		     char *msg, size_t msglen)
{
	const struct trec_writer_opts opts = { .chunk_bytes = OUTPUT_CHUNK_BYTES };
	struct trec_header h;
	int fd, e;

	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	o->path = path;
	o->stream = !strcmp(path, "-");
	fd = trec_output_file_begin(o, msg, msglen);
	if (fd < 0)
		return fd;
	trec_header_init_host(&h);
	errno = 0;
	o->w = trec_writer_open_fd(fd, &h, &opts);
	if (!o->w) {
		/* A full disk: the unnamed file goes with its fd. */
		e = errno ? -errno : -EIO;
		trec_output_file_abandon(o);
		snprintf(msg, msglen, "cannot create %s: %s", trec_output_name(o), strerror(-e));
		return e;
	}
	e = trec_output_file_publish(o, fd, force, msg, msglen);
	if (e) {
		trec_writer_close(o->w);
		o->w = NULL;
		trec_output_file_abandon(o);
	}
	return e;
}

const char *trec_output_name(const struct trec_output *o)
{
	return o->stream ? "stdout" : o->path;
}

struct trec_writer *trec_output_lock(struct trec_output *o)
{
	pthread_mutex_lock(&o->lock);
	if (o->err || !o->w) {
		pthread_mutex_unlock(&o->lock);
		return NULL;
	}
	return o->w;
}

int trec_output_unlock(struct trec_output *o, int rc)
{
	/* A record the format cannot hold (-E2BIG: a process's mapping
	 * paths past 64 MiB, say; -EINVAL) is refused by the writer before
	 * any byte of it is written: that record is lost, said once, and the
	 * recording goes on. Every other error ends it. */
	if (rc == -E2BIG || rc == -EINVAL) {
		if (!o->refused++)
			fprintf(stderr, "trecord: warning: a record past the format's limits was "
				"left out (%s)\n", strerror(-rc));
	} else if (rc < 0 && !o->err) {
		o->err = rc;
	}
	pthread_mutex_unlock(&o->lock);
	return rc;
}

int trec_output_error(struct trec_output *o)
{
	int e;

	pthread_mutex_lock(&o->lock);
	e = o->err;
	pthread_mutex_unlock(&o->lock);
	return e;
}

uint64_t trec_output_bytes(struct trec_output *o)
{
	uint64_t n;

	pthread_mutex_lock(&o->lock);
	n = o->w ? trec_writer_bytes(o->w) : 0;
	pthread_mutex_unlock(&o->lock);
	return n;
}

int trec_output_close(struct trec_output *o)
{
	int rc = 0, e;

	pthread_mutex_lock(&o->lock);
	if (o->w) {
		rc = trec_writer_flush(o->w);
		o->bytes = trec_writer_bytes(o->w);
		e = trec_writer_close(o->w);
		if (e < 0 && !rc)
			rc = e;
		o->w = NULL;
	}
	if (rc < 0 && !o->err)
		o->err = rc;
	e = o->err;
	pthread_mutex_unlock(&o->lock);
	pthread_mutex_destroy(&o->lock);
	return e;
}

void trec_output_discard(struct trec_output *o)
{
	if (!o->path)
		return; /* never opened */
	/* Unlinked while still ours (locked), so no one takes it meanwhile. */
	if (o->w)
		trec_output_file_unpublish(o);
	trec_output_close(o);
}

int trec_output_open_writer(struct trec_output *o, const char *path, struct trec_writer *w)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	o->path = path;
	o->w = w;
	return 0;
}

/*
 * Auto compression: zstd level 3 (its default: 4.7x on -a recordings),
 * or level 1 (perf record -z's) while more than FAST_ABOVE bytes of
 * records a second are written, as at -a -F 20000 (1.7 MB/s beside two
 * busy loops): a third less compression time, the recorder's CPU 8-10%
 * less, for 6-12% larger chunks. Back to 3 below SLOW_BELOW.
 */
#define AUTO_LEVEL TREC_DEFAULT_COMPRESSION_LEVEL
#define FAST_LEVEL 1
#define FAST_ABOVE (1u << 20)
#define SLOW_BELOW (512u << 10)

/* Under o->lock. */
static int current_level(const struct trec_output *o)
{
	return o->level ? o->level : o->fast ? FAST_LEVEL : AUTO_LEVEL;
}

/* Under o->lock, o->w set: the rate since the last look picks the level. */
static void auto_level(struct trec_output *o, uint64_t now)
{
	uint64_t bytes = trec_writer_record_bytes(o->w);

	/* A writer swapped in starts its count over: look again next time. */
	if (o->rate_ns && now > o->rate_ns && bytes >= o->rate_bytes) {
		double per_s = (double)(bytes - o->rate_bytes) * 1e9 / (double)(now - o->rate_ns);

		if (per_s > FAST_ABOVE)
			o->fast = true;
		else if (per_s < SLOW_BELOW)
			o->fast = false;
		trec_writer_set_level(o->w, current_level(o));
	}
	o->rate_ns = now;
	o->rate_bytes = bytes;
}

int trec_output_set_level(struct trec_output *o, int level)
{
	int rc = 0;

	if (level < 0 || level > TREC_MAX_COMPRESSION_LEVEL)
		return -EINVAL;
	pthread_mutex_lock(&o->lock);
	o->level = level;
	if (o->w)
		rc = trec_writer_set_level(o->w, current_level(o));
	pthread_mutex_unlock(&o->lock);
	return rc;
}

void trec_output_flush_tick(struct trec_output *o, uint64_t now)
{
	int rc;

	pthread_mutex_lock(&o->lock);
	if (o->w && !o->err) {
		rc = trec_writer_flush(o->w);
		if (rc < 0)
			o->err = rc;
		if (!o->level)
			auto_level(o, now);
	}
	pthread_mutex_unlock(&o->lock);
}

struct trec_writer *trec_output_swap(struct trec_output *o, struct trec_writer *w)
{
	struct trec_writer *old;

	pthread_mutex_lock(&o->lock);
	old = o->w;
	o->w = w;
	if (w)
		trec_writer_set_level(w, current_level(o));
	pthread_mutex_unlock(&o->lock);
	return old;
}
