/* SPDX-License-Identifier: MIT */
/*
 * One switched file of the flight recorder: written under a temporary name
 * next to -o, then renamed to OUT.YYYYMMDDhhmmssCC (perf's name for its
 * switched files: local time, hundredths of a second).
 */
#ifndef TREC_FLIGHT_FILE_H
#define TREC_FLIGHT_FILE_H

#include <limits.h>
#include <stdint.h>
#include "format/containers/u64map.h"
#include "record/flight/state.h"

struct trec_touched;
struct trec_summary;
struct trec_archive_totals;

struct trec_flight_file {
	char tmp[PATH_MAX];
	struct trec_writer *w;
	struct trec_touched *touched; /* files its samples hit; NULL: no archives */
	struct trec_u64map files;     /* file id -> struct file_ref (for the archives) */
	uint64_t samples, first_ns;   /* SAMPLE records, the first one's time */
};

/* Creates the file and writes the state first. 0, or -errno with a message. */
int trec_flight_file_open(struct trec_flight_file *d, const char *path, int archive_level,
			  const struct trec_flight_state *st, char *msg, size_t msglen);
/* Appends a sealed segment's chunks and folds the segment into the state. */
int trec_flight_file_add(struct trec_flight_file *d, struct trec_flight_state *st,
			 const struct trec_memfile *seg, uint64_t cut_ns);
/* Ends it (the caller wrote METRICS): embedded symbols, sum (its samples
 * set here), close, rename to path.TIMESTAMP, whose name goes to name. On
 * an error the file is left for trec_flight_file_keep. */
int trec_flight_file_close(struct trec_flight_file *d, const char *path, int archive_level,
			   struct trec_summary *sum, struct trec_archive_totals *at,
			   char *name, size_t namelen);
/* Removes a file never finished. */
void trec_flight_file_abandon(struct trec_flight_file *d);
/* A file whose writing failed (a full disk) keeps what it holds, readable
 * up to its last whole chunk, as path.TIMESTAMP (or its partial name if
 * that link fails); name says which ("" if there was none). */
int trec_flight_file_keep(struct trec_flight_file *d, const char *path, char *name,
			  size_t namelen);
/* perf's timestamp, "YYYYMMDDhhmmssCC", into buf (>= 17 bytes). */
void trec_flight_timestamp(char *buf, size_t len);

#endif /* TREC_FLIGHT_FILE_H */
