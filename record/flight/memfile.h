/* SPDX-License-Identifier: MIT */
/*
 * A recording kept in memory (a memfd): the flight recorder's segments and
 * its state. A writer writes it like a file; its chunks are then read in
 * place, or copied into a switched file (trec_writer_copy_chunks).
 */
#ifndef TREC_FLIGHT_MEMFILE_H
#define TREC_FLIGHT_MEMFILE_H

#include <stddef.h>
#include <stdint.h>
#include "trec_format.h"

struct trec_memfile {
	int fd;             /* the memfd; -1 if none */
	struct trec_writer *w; /* while being written (owns a dup of fd) */
	const uint8_t *map; /* while being read */
	size_t len;
};

/* Creates an empty in-memory recording with a writer on it. 0 or -errno. */
int trec_memfile_create(struct trec_memfile *m, const char *name);
/* Ends the writer (flushes, closes). 0 or its error. */
int trec_memfile_seal(struct trec_memfile *m);
/* Maps a sealed file: its chunks are map[256 .. len) (trec_memfile_chunks). */
int trec_memfile_map(struct trec_memfile *m);
const uint8_t *trec_memfile_chunks(const struct trec_memfile *m, size_t *n);
/* A reader over a mapped file (warnings dropped: a chunk stream of ours). */
struct trec_reader *trec_memfile_reader(const struct trec_memfile *m);
/* Bytes held (the file's size). */
uint64_t trec_memfile_bytes(const struct trec_memfile *m);
void trec_memfile_free(struct trec_memfile *m);

#endif /* TREC_FLIGHT_MEMFILE_H */
