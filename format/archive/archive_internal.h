/* SPDX-License-Identifier: MIT */
/* Internal to the archive decoder: what a parsed archive owns. */
#ifndef TREC_REPORT_ARCHIVE_INTERNAL_H
#define TREC_REPORT_ARCHIVE_INTERNAL_H

#include "format/archive/trec_archive.h"

struct trec_archive {
	struct trec_arc_tables t;
	char *arena; /* every string of t.strings, NUL-terminated */
};

#endif /* TREC_REPORT_ARCHIVE_INTERNAL_H */
