/* SPDX-License-Identifier: MIT */
/*
 * The JIT symbols of one file (a perf map or a jitdump) as the parsers
 * build them: entries in file order, their line rows, the source files the
 * rows name, and what was refused. The files are written by the profiled
 * process, so everything here is bounded by struct trec_jit_limits; a
 * limit ends the table (TREC_JIT_F_TRUNCATED) instead of growing it.
 * Emitted as JITSYMS records (FORMAT.md §6.12).
 */
#ifndef TREC_JIT_TABLE_H
#define TREC_JIT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/containers/index_table.h"

#include "trec_format.h"

struct trec_jit_limits {
	uint64_t max_file_bytes; /* bytes of the file looked at */
	uint32_t max_entries;    /* entries kept */
	uint32_t max_lines;      /* line rows kept, all entries together */
	uint32_t max_name;       /* bytes of a name or source file name */
};

/* perf maps of busy servers reach hundreds of MB; with the filter only a
 * few entries are kept, so the file size is the bound that matters. */
#define TREC_JIT_LIMITS_DEFAULT ((struct trec_jit_limits){ \
	.max_file_bytes = 1ULL << 30, .max_entries = 1u << 20, \
	.max_lines = 4u << 20, .max_name = 4096 })

/* The pcs samples hit in the process (sorted): entries holding none are
 * dropped while parsing. NULL keeps every entry. */
struct trec_jit_filter {
	const uint64_t *pcs;
	size_t n;
};

bool trec_jit_filter_covers(const struct trec_jit_filter *f, uint64_t start, uint64_t size);

struct trec_jit_table {
	struct trec_jit_entry *entries;
	uint32_t n;
	size_t cap;
	struct trec_jit_line *lines;
	uint32_t nlines;
	size_t caplines;
	const char **files;
	uint32_t nfiles;
	size_t capfiles;
	struct trec_itab file_index; /* files by name */
	char **blocks;       /* string storage */
	size_t nblocks;
	char *cur;
	size_t left;
	struct trec_jit_limits lim;
	uint32_t flags;      /* enum trec_jit_flags */
	uint32_t bad;        /* refused lines or records */
	char why[160];       /* the first refusal, for the warning */
};

void trec_jit_table_init(struct trec_jit_table *t, const struct trec_jit_limits *lim);
void trec_jit_table_free(struct trec_jit_table *t);

/* Counts a refused line or record; the first one's reason is kept. */
void trec_jit_table_bad(struct trec_jit_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Appends an entry (name: len bytes, no NUL inside; longer than max_name
 * is cut). Its index, -E2BIG when max_entries is reached (the table is
 * then marked truncated), or -ENOMEM. */
int64_t trec_jit_table_add(struct trec_jit_table *t, uint64_t start, uint64_t size,
			   uint64_t load_ns, uint64_t code_index, const char *name, size_t len);
/* As trec_jit_table_add, for code that moved: name is an entry's of t
 * already, shared, not copied (a jitdump of many moves of long names
 * would copy each name once per move). */
int64_t trec_jit_table_add_moved(struct trec_jit_table *t, uint64_t start, uint64_t size,
				 uint64_t load_ns, uint64_t code_index, const char *name);
/* Appends a row to the last entry; 0, -E2BIG (dropped, truncated) or -ENOMEM. */
int trec_jit_table_add_line(struct trec_jit_table *t, uint64_t addr, uint32_t line,
			    uint32_t file);
/* The index of a source file name, added if new; -ENOMEM. */
int64_t trec_jit_table_file(struct trec_jit_table *t, const char *name, size_t len);
/* Sorts the rows of entry i by address. */
void trec_jit_table_sort_lines(struct trec_jit_table *t, uint32_t i);

/* Records of at most this many entries (a record stays far below the
 * format's 64 MiB) */
#define TREC_JIT_ENTRIES_PER_RECORD 8192u

typedef int (*trec_jit_write_fn)(void *ctx, const struct trec_jitsyms *j);

/* Writes t as JITSYMS records with hdr's time_ns, pid, source, path and
 * flags (t's flags and bad added). 0 or the first write error. */
int trec_jit_table_emit(const struct trec_jit_table *t, const struct trec_jitsyms *hdr,
			trec_jit_write_fn write, void *ctx);

#endif /* TREC_JIT_TABLE_H */
