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
	struct stat st;

	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	o->path = path;
	if (!force && lstat(path, &st) == 0) {
		/* Like perf: the previous recording survives one run as .old. */
		size_t n = strlen(path) + 5;
		char *old = malloc(n);

		if (!old) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		snprintf(old, n, "%s.old", path);
		if (rename(path, old)) {
			int e = -errno;

			snprintf(msg, msglen, "cannot move the existing %s to %s: %s", path, old,
				 strerror(-e));
			free(old);
			return e;
		}
		free(old);
	}
	/* -f: a new file, not the old one truncated, so it gets our 0600 mode
	 * and nobody holding the old one open sees the new recording. */
	if (force && unlink(path) && errno != ENOENT) {
		int e = -errno;

		snprintf(msg, msglen, "cannot replace %s: %s", path, strerror(-e));
		return e;
	}
	trec_header_init_host(&h);
	o->w = trec_writer_open(path, &h, NULL, 0);
	if (!o->w) {
		int e = errno ? -errno : -EIO;

		snprintf(msg, msglen, "cannot create %s: %s", path, strerror(-e));
		return e;
	}
	return 0;
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
		rc = trec_writer_close(o->w);
		o->w = NULL;
	}
	if (rc < 0 && !o->err)
		o->err = rc;
	e = o->err;
	pthread_mutex_unlock(&o->lock);
	pthread_mutex_destroy(&o->lock);
	return e;
}
