/* SPDX-License-Identifier: MIT */
/*
 * Symbol archives, the encoder side: from an ELF file (and its debug file,
 * found by build-id or .gnu_debuglink) to the self-contained archive that a
 * SYMTAB record carries, so a recording symbolizes on another machine.
 * Layout: FORMAT.md, "Embedded symbol archives (SYMTAB records)".
 */
#ifndef TREC_RECORD_ARCHIVE_H
#define TREC_RECORD_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "format/archive/trec_archive.h"

struct trec_writer;

struct trec_archive_stats {
	uint32_t symbols, lines, inlines, strings;
	uint32_t sources;     /* enum trec_arc_source bits */
	uint64_t bytes;       /* archive size */
	uint64_t build_ns;    /* wall time of the build */
};

/*
 * Builds the archive of the ELF file at path at the given level
 * (enum trec_archive_level, SYMBOLS or FULL). If bid_len > 0 the file's
 * GNU build-id must equal build_id, else -ESTALE (the file was replaced
 * since it was mapped). *out is malloc'd and owned by the caller.
 * Returns 0 or a negative errno (-ENOENT, -ENOEXEC for a non-ELF file,
 * -ESTALE, -ENOMEM, -EFBIG if the archive would exceed the format limit).
 * st may be NULL.
 */
int trec_archive_build(const char *path, const uint8_t *build_id, size_t bid_len,
		       int level, uint8_t **out, size_t *out_len,
		       struct trec_archive_stats *st);

/*
 * Level SAMPLED: only the symbols that can name one of addrs (the lookup
 * window of each), line rows and inline ranges only inside the functions
 * that hold one of addrs (ELF vaddrs, any order). What a
 * recording needs to symbolize its own samples, at a fraction of the size.
 */
int trec_archive_build_sampled(const char *path, const uint8_t *build_id, size_t bid_len,
			       const uint64_t *addrs, size_t naddrs, uint8_t **out,
			       size_t *out_len, struct trec_archive_stats *st);

/* One file whose archive trecord embeds. */
struct trec_archive_file {
	uint64_t file_id;
	const char *path;        /* what to open; e.g. /proc/PID/map_files/... */
	const char *name;        /* for messages (the mapped path) */
	const uint8_t *build_id; /* as recorded; may be NULL */
	size_t build_id_len;
	const uint64_t *addrs;   /* level SAMPLED: the file's sampled ELF vaddrs */
	size_t naddrs;
};

struct trec_archive_totals {
	uint32_t files;          /* archives written */
	uint32_t failed;         /* files that could not be archived */
	uint32_t skipped;        /* files left out: a second stop signal */
	uint64_t bytes;          /* archive bytes written (before chunk compression) */
	uint64_t build_ns;
};

/*
 * Builds and writes one archive (in one or more SYMTAB records) per file.
 * A file that cannot be archived gets one warning on stderr and is skipped:
 * the recording stays valid, treport falls back to local files for it.
 * Returns 0, or the writer's negative errno (then the recording is broken).
 */
int trec_archive_write_all(struct trec_writer *w, const struct trec_archive_file *files,
			   size_t num_files, int level, struct trec_archive_totals *tot);

/* Writes one archive as SYMTAB records of at most part_max bytes each
 * (trec_archive_write_all uses TREC_ARC_PART_MAX; tests use less). */
int trec_archive_write_parts(struct trec_writer *w, uint64_t file_id, const uint8_t *p,
			     size_t n, size_t part_max);

/* ---- which files samples touched (trecord's writer thread) --------------- */

struct trec_rec_frame;
struct trec_mapping_snapshot;
struct trec_touched;

/* keep_addrs: also remember each file's sampled addresses (level SAMPLED). */
struct trec_touched *trec_touched_new(int keep_addrs);
void trec_touched_free(struct trec_touched *t);
/* Notes one frame of a sample of pid; only native frames count. A frame
 * with a runtime pc (no file yet) is resolved at the end through every
 * mapping snapshot of pid. One thread only. 0 or -ENOMEM. */
int trec_touched_frame(struct trec_touched *t, uint32_t pid, const struct trec_rec_frame *f);
/* Notes a mapping snapshot as written (any thread; safe alongside
 * trec_touched_frame). 0 or -ENOMEM. */
int trec_touched_mappings(struct trec_touched *t, const struct trec_mapping_snapshot *s);
/* Files noted so far (runtime pcs are resolved only when writing). */
size_t trec_touched_count(const struct trec_touched *t);
/* The process pid is over (after its exit's grace period): its runtime pcs
 * are resolved now and its state freed. The noting thread only. */
void trec_touched_pid_done(struct trec_touched *t, uint32_t pid);
/* Every few seconds, from the noting thread: frees the state of pids gone
 * at two sweeps in a row, and bounds what a live pid keeps. */
void trec_touched_sweep(struct trec_touched *t);

/* Fills f (path, name, build-id) for a file id; path may point into buf.
 * Returns 0, or non-zero if the file is unknown. */
typedef int (*trec_archive_lookup_fn)(void *ctx, uint64_t file_id,
				      struct trec_archive_file *f, char *buf, size_t buflen);

/* Resolves the runtime pcs, then trec_archive_write_all over the touched
 * files, in file id order. After the noting threads have stopped. */
int trec_archive_write_touched(struct trec_writer *w, struct trec_touched *t, int level,
			       trec_archive_lookup_fn lookup, void *ctx,
			       struct trec_archive_totals *tot);

struct trec_output;
struct trec_pid_sync;

/* archive_session.c: the end of a recording file, shared by the whole
 * recording and the flight recorder's switched files: the symbols of the
 * files its samples touched (t may be NULL), then sum (may be NULL). 0 or
 * the writer's negative errno. */
struct trec_summary;
int trec_finish_file(struct trec_writer *w, struct trec_touched *t, int level,
		     trec_archive_lookup_fn lookup, void *ctx, const struct trec_summary *sum,
		     struct trec_archive_totals *tot);
/* The same for the session's output, files named by pid_sync. */
int trec_archive_write_session(struct trec_output *out, struct trec_touched *touched,
			       struct trec_pid_sync *sync, int level,
			       const struct trec_summary *sum, struct trec_archive_totals *tot);
/* trec_archive_lookup_fn over a pid_sync (ctx), after its thread stopped. */
int trec_archive_lookup_synced(void *ctx, uint64_t file_id, struct trec_archive_file *f,
			       char *buf, size_t buflen);

/* "none", "symbols", "full", "sampled" -> level; -1 if unknown. */
int trec_archive_level_parse(const char *s);
const char *trec_archive_level_name(int level);

#endif /* TREC_RECORD_ARCHIVE_H */
