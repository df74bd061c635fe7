/* SPDX-License-Identifier: MIT */
/*
 * Internal to the archive encoder: the tables being collected from an ELF
 * file, before they are put in canonical order and serialized.
 */
#ifndef TREC_RECORD_ARCHIVE_BUILD_H
#define TREC_RECORD_ARCHIVE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "format/archive/trec_archive.h"

struct arc_builder {
	/* Indices in t refer to strs[] until arc_finalize() sorts them. */
	struct trec_arc_tables t;
	char **strs;
	size_t cap_strs;
	uint32_t *slots;        /* open addressing: string index + 1, 0 empty */
	size_t nslots;
	uint32_t last_str;      /* the last string interned or found */
	size_t cap_syms, cap_lines;
	size_t *cap_depth;
	int oom;                /* sticky: an allocation failed */
	int syms_final;         /* syms already in canonical order (from an archive) */
};

void arc_builder_free(struct arc_builder *b);
/* Interns s; returns its index (0 on allocation failure, with b->oom set). */
uint32_t arc_intern(struct arc_builder *b, const char *s);
void arc_add_sym(struct arc_builder *b, uint64_t addr, uint64_t size, const char *name,
		 uint8_t bind);
/* file: a source path or NULL for a gap row. */
void arc_add_line(struct arc_builder *b, uint64_t addr, const char *file, uint32_t line);
void arc_add_section(struct arc_builder *b, const char *name, uint32_t type, uint64_t flags,
		     uint64_t addr, uint64_t size);
void arc_add_segment(struct arc_builder *b, uint32_t flags, uint64_t vaddr, uint64_t memsz,
		     uint64_t align);
void arc_add_inline(struct arc_builder *b, unsigned depth, uint64_t lo, uint64_t hi,
		    const char *name, const char *call_file, uint32_t call_line);

/* ELF -> tables (libdwfl). addrs: level SAMPLED reads only the CUs holding
 * them. 0 or negative errno. */
int arc_collect(struct arc_builder *b, const char *path, const uint8_t *bid,
		size_t bid_len, int level, const uint64_t *addrs, size_t naddrs);
/* Sorts the strings and every table, merges duplicates. 0 or -ENOMEM. */
int arc_finalize(struct arc_builder *b);
/* All of arc_finalize but the strings (sorting a large library's names
 * is most of it): arc_restrict sorts those it keeps. */
int arc_finalize_tables(struct arc_builder *b);
/* After arc_finalize_tables: keeps line rows and inline ranges only inside
 * the functions (symbols) that hold one of addrs, and only the symbols
 * that can name one of addrs; then sorts the strings left, as
 * arc_finalize would. */
int arc_restrict(struct arc_builder *b, const uint64_t *addrs, size_t n);

/* ---- the symbol cache's raw DWARF rows ------------------------------------ */

/* An inlined call's range as collected (depth 1 = inlined into the
 * function); name and call_file as in trec_arc_inline, indices of b.strs. */
struct arc_unit_inline {
	uint64_t lo, hi;
	uint32_t depth, name, call_file, call_line;
};

/* One CU's rows: the next nlines of b.t.lines and ninls of inls. */
struct arc_unit {
	uint32_t nlines, ninls;
};

/* From start on (ELF vaddr), dwfl_module_addrdie gives unit (UINT32_MAX:
 * none), up to the next run's start. */
struct arc_unit_run {
	uint64_t start;
	uint32_t unit;
};

/* Every CU of a file as level sampled would collect it, and which CU each
 * address selects: what level sampled reads of DWARF, without DWARF. */
struct arc_units {
	struct arc_builder b;    /* strs; t.lines: every unit's rows, in unit order */
	struct arc_unit_inline *inls;
	size_t ninls, cap_inls;
	struct arc_unit *units;
	size_t nunits, cap_units;
	struct arc_unit_run *runs; /* sorted by start, unique */
	size_t nruns, cap_runs;
	int has_cu;              /* the file has DWARF CUs */
};

/* Collects u for the file at path (its build-id must be bid, if given).
 * Checks the run map against libdwfl's answer for each of addrs. 0,
 * -ENOTSUP (some CU or address the map cannot express) or a negative
 * errno. */
int arc_collect_units(struct arc_units *u, const char *path, const uint8_t *bid,
		      size_t bid_len, const uint64_t *addrs, size_t naddrs);
void arc_units_free(struct arc_units *u);
/* The unit addr selects, or UINT32_MAX. */
uint32_t arc_unit_of(const struct arc_units *u, uint64_t addr);

/* st (may be NULL) for b's finished tables, encoded in bytes, built
 * since start (trec_now_ns). */
struct trec_archive_stats;
void arc_stats(const struct arc_builder *b, size_t bytes, uint64_t start,
	       struct trec_archive_stats *st);

#endif /* TREC_RECORD_ARCHIVE_BUILD_H */
