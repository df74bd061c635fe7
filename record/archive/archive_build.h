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

#endif /* TREC_RECORD_ARCHIVE_BUILD_H */
