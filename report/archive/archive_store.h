/* SPDX-License-Identifier: MIT */
/*
 * The archives of one or more recordings, by file id (archive_store.c):
 * SYMTAB parts joined and parsed the first time a frame needs them.
 * Out of memory ends treport (report/util.h).
 */
#ifndef RP_ARCHIVE_STORE_H
#define RP_ARCHIVE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "format/archive/archive_reader.h"

struct trec_blob;
struct trec_archive_store;
typedef void (*trec_archive_warn_fn)(void *ctx, const char *msg);

/* warn gets one message per problem (NULL: stderr). */
struct trec_archive_store *trec_archive_store_new(trec_archive_warn_fn warn, void *ctx);
void trec_archive_store_free(struct trec_archive_store *s);
/* Takes (a copy of) one SYMTAB record's blob. 0; malformed part numbers
 * are warned about and dropped. */
int trec_archive_store_add(struct trec_archive_store *s, const struct trec_blob *b);
/* The parsed archive of file_id; NULL if there is none or it is incomplete
 * or damaged (warned about once, naming name). Parsed on first use. */
const struct trec_archive *trec_archive_store_get(struct trec_archive_store *s,
						  uint64_t file_id, const char *name);
/* The k-th archive of file_id (several recordings may each bring one;
 * identical ones are kept once), as trec_archive_store_get. */
const struct trec_archive *trec_archive_store_get_nth(struct trec_archive_store *s,
						      uint64_t file_id, const char *name, size_t k);
/* How many archives of file_id there are (usable or not). */
size_t trec_archive_store_archives(const struct trec_archive_store *s, uint64_t file_id);
/* The file ids that have an archive, in the order they were first seen. */
size_t trec_archive_store_count(const struct trec_archive_store *s);
uint64_t trec_archive_store_file_id(const struct trec_archive_store *s, size_t i);

#endif /* RP_ARCHIVE_STORE_H */
