/* SPDX-License-Identifier: MIT */
/* treport --extract-archive: the embedded symbols as ELF debug files. */
#ifndef RP_ARCHIVE_EXTRACT_H
#define RP_ARCHIVE_EXTRACT_H

#include "report/model.h"

/*
 * Writes every embedded archive as DIR/.build-id/xx/yyyy.debug (or
 * DIR/file-<id>.debug without a build-id) and an index DIR/trec-archives.txt
 * ("build-id file-id path" per line). Prints what it wrote to stderr.
 * Returns 0, or -1 after one message per file that failed.
 */
int rp_extract_archives(const struct rp_model *m, const char *dir);

#endif /* RP_ARCHIVE_EXTRACT_H */
