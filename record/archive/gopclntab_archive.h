/* SPDX-License-Identifier: MIT */
/* The archive collector's use of .gopclntab (see gopclntab_archive.c). */
#ifndef TREC_RECORD_ARCHIVE_GOPCLNTAB_ARCHIVE_H
#define TREC_RECORD_ARCHIVE_GOPCLNTAB_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct arc_builder;

/*
 * After arc_collect has read symbols (and DWARF): if elf is a Go binary,
 * names the Go functions its symbol table lacks (stripped Go) and, at level
 * FULL or SAMPLED, replaces the lines and inlined calls of the Go text with
 * the table's (only in the functions holding one of addrs, when given).
 * Returns the TREC_ARC_SRC_* bits it contributed (0 if elf is not Go or its
 * table is unreadable: the archive then keeps what it had).
 */
uint32_t arc_collect_gopclntab(struct arc_builder *b, Elf *elf, int level,
			       const uint64_t *addrs, size_t naddrs);

#endif /* TREC_RECORD_ARCHIVE_GOPCLNTAB_ARCHIVE_H */
