/* SPDX-License-Identifier: MIT */
/* Internal: an archive's line rows as DWARF 4 sections (archive_dwarf.c). */
#ifndef TREC_REPORT_ARCHIVE_DWARF_H
#define TREC_REPORT_ARCHIVE_DWARF_H

#include "encode.h"
#include "format/archive/trec_archive.h"

/* Appends .debug_info (one CU covering [lo, hi)), .debug_abbrev and
 * .debug_line. 0, or -1 when out of memory. */
int trec_archive_dwarf(const struct trec_arc_tables *t, uint64_t lo, uint64_t hi,
		       struct trec_buf *info, struct trec_buf *abbrev, struct trec_buf *line);

#endif /* TREC_REPORT_ARCHIVE_DWARF_H */
