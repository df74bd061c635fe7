/* SPDX-License-Identifier: MIT */
/*
 * Parser of perf maps (/tmp/perf-PID.map): one "START SIZE name" line per
 * code object, START and SIZE in hex with or without 0x (V8 and CPython
 * write none, HotSpot writes 0x and zero padding), one space or tab after
 * each number, the name up to the end of the line, verbatim.
 *
 * The file is the profiled process's: a line longer than the limit, with
 * bad hex, an overflowing range, a NUL or no name is refused and counted
 * (trec_jit_table.bad, the first reason kept); it never stops the parse.
 * Entries keep the file's order: a reader lets the last one covering an
 * address win (FORMAT.md §6.12).
 */
#ifndef TREC_JIT_PERFMAP_H
#define TREC_JIT_PERFMAP_H

#include "record/jit/jit_table.h"

struct trec_perfmap_parser {
	struct trec_jit_table *t;
	const struct trec_jit_filter *filter;
	char *line;        /* the line being assembled, up to max_line bytes */
	size_t len, max_line;
	bool overlong;     /* skipping the rest of a line over the limit */
	bool stopped;      /* max_entries or an allocation failure ended the parse */
	bool at_limit;     /* max_file_bytes read: the rest is ignored */
	int err;           /* -ENOMEM */
	uint64_t lineno, bytes;
};

/* Lines are at most the name limit plus room for the two numbers. */
int trec_perfmap_init(struct trec_perfmap_parser *p, struct trec_jit_table *t,
		      const struct trec_jit_filter *filter);
/* Feeds the next bytes of the file. */
void trec_perfmap_feed(struct trec_perfmap_parser *p, const char *buf, size_t n);
/* Ends the input (a last line without a newline is parsed); frees p.
 * 0 or -ENOMEM. */
int trec_perfmap_finish(struct trec_perfmap_parser *p);

int trec_perfmap_parse_mem(const char *buf, size_t n, const struct trec_jit_filter *filter,
			   struct trec_jit_table *t);
/* Reads fd from its current offset until EOF or max_file_bytes; 0 or
 * negative errno. */
int trec_perfmap_parse_fd(int fd, const struct trec_jit_filter *filter, struct trec_jit_table *t);

#endif /* TREC_JIT_PERFMAP_H */
