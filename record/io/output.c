// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/io/output.h"

int trec_output_open(struct trec_output *o, const char *path, bool force,
		     char *msg, size_t msglen)
{
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
	o->w = trec_writer_open_fd(fd, &h, NULL);
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
	if (rc < 0 && !o->err)
		o->err = rc;
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

struct trec_writer *trec_output_swap(struct trec_output *o, struct trec_writer *w)
{
	struct trec_writer *old;

	pthread_mutex_lock(&o->lock);
	old = o->w;
	o->w = w;
	pthread_mutex_unlock(&o->lock);
	return old;
}
