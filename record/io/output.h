/* SPDX-License-Identifier: MIT */
/*
 * The recording being written, shared by trecord's threads: one lock
 * around the format writer, and the first write error latched so that
 * recording stops with one clear message instead of a stream of them.
 *
 *   struct trec_writer *w = trec_output_lock(o);
 *   if (w)
 *           trec_output_unlock(o, trec_write_sample(w, &s));
 *
 * The file (output_file.c): only a regular file is ever replaced; the new
 * one is written unnamed, locked (flock), then linked in, so no reader or
 * second trecord sees a half-made file, and a second trecord given the same
 * path fails instead of moving the file being written to FILE.old. "-"
 * streams to standard output (FORMAT.md needs no seeking back).
 */
#ifndef TREC_OUTPUT_H
#define TREC_OUTPUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "trec_format.h"

struct trec_output {
	pthread_mutex_t lock;
	struct trec_writer *w;
	const char *path;
	int err;          /* first error, negative errno */
	uint64_t refused; /* records the writer refused as past the format's limits */
	uint64_t bytes;   /* written, once closed */
	/* Compression: -z's level, or 0 (auto: level 3, or 1 while records
	 * come faster than output.c's threshold); the auto rate's last look. */
	int level;
	bool fast;
	uint64_t rate_ns, rate_bytes;
	/* output_file.c */
	bool stream;      /* "-": standard output */
	bool rotated;     /* the previous file is now path.old */
	dev_t dev;        /* the file we created */
	ino_t ino;
	char *tmp;        /* its temporary name, without O_TMPFILE */
};

/* A usage check before anything starts: "-" must not be a terminal, an
 * existing path (or path.old, unless force) must be a regular file.
 * 0, or -EINVAL with a message. */
int trec_output_check(const char *path, bool force, char *msg, size_t msglen);
/* Creates path (mode 0600), or streams to stdout for "-" (then the
 * process's stdout, and the command's, become stderr, as perf does). An
 * existing path is renamed to path.old, or with force removed, unless
 * another trecord holds it. 0, or negative errno with a message. */
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
/* Nothing worth keeping was recorded: removes the file (and puts back the
 * previous one from path.old), then closes. */
void trec_output_discard(struct trec_output *o);
/* The flight recorder (record/flight/): the threads write into a writer
 * it owns (a segment in memory), swapped for the next one as each ends. */
int trec_output_open_writer(struct trec_output *o, const char *path, struct trec_writer *w);
/* Puts w in place of the current writer, which it returns (to close). */
struct trec_writer *trec_output_swap(struct trec_output *o, struct trec_writer *w);
/* -z: the zstd level of every chunk from now on (writers swapped in too);
 * 0: auto. 0, or -EINVAL (the level is kept). */
int trec_output_set_level(struct trec_output *o, int level);
/* The main thread's periodic flush, at now (CLOCK_MONOTONIC ns). Auto
 * level: the record bytes written since the last one pick the next
 * chunks' level. */
void trec_output_flush_tick(struct trec_output *o, uint64_t now);
/* For messages: the path, or "stdout". */
const char *trec_output_name(const struct trec_output *o);

/* output_file.c, for output.c: an unnamed (or temporary) file in path's
 * directory, or stdout's fd, for the writer; then published under path
 * once its header is written. Negative errno with a message on failure. */
int trec_output_file_begin(struct trec_output *o, char *msg, size_t msglen);
int trec_output_file_publish(struct trec_output *o, int fd, bool force, char *msg,
			     size_t msglen);
/* Removes the temporary name of a file never published. */
void trec_output_file_abandon(struct trec_output *o);
/* Unlinks the published file, putting path.old back. */
void trec_output_file_unpublish(struct trec_output *o);

#endif /* TREC_OUTPUT_H */
