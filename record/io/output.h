/* SPDX-License-Identifier: MIT */
/*
 * The recording being written, shared by trecord's threads: one lock
 * around the format writer, and the first write error latched so that
 * recording stops with one clear message instead of a stream of them.
 *
 *   struct trec_writer *w = trec_output_lock(o);
 *   if (w)
 *           trec_output_unlock(o, trec_write_sample(w, &s));
 */
#ifndef TREC_OUTPUT_H
#define TREC_OUTPUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trec_format.h"

struct trec_output {
	pthread_mutex_t lock;
	struct trec_writer *w;
	const char *path;
	int err; /* first error, negative errno */
};

/* Creates path (mode 0600). An existing file is renamed to path.old, or
 * with force removed. 0, or negative errno with a message. */
int trec_output_open(struct trec_output *o, const char *path, bool force,
		     char *msg, size_t msglen);
/* The writer, locked; NULL (unlocked) once a write has failed. */
struct trec_writer *trec_output_lock(struct trec_output *o);
/* Unlocks, latching rc if it is the first error. Returns rc. */
int trec_output_unlock(struct trec_output *o, int rc);
int trec_output_error(struct trec_output *o);
uint64_t trec_output_bytes(struct trec_output *o);
/* Flushes and closes; returns the first error of the whole recording. */
int trec_output_close(struct trec_output *o);

#endif /* TREC_OUTPUT_H */
