/* SPDX-License-Identifier: MIT */
/*
 * A persistent cache of extracted stack deltas, keyed by GNU build-id (in
 * the spirit of perf's ~/.debug build-id cache): a large binary's deltas
 * take seconds to extract and most of its first samples would otherwise
 * end in NATIVE_NO_PAGE_INFO. Files without a build-id are not cached.
 *
 * Location: $TREC_CACHE_DIR, else $XDG_CACHE_HOME/trec, else
 * $HOME/.cache/trec; one file per build-id, deltas-x<E>/<hex build-id>,
 * where E is the extraction's version: the same file gives other deltas when
 * extraction learns new rules (Go's roots and prologues in E 2, systemstack's
 * helper in 3, Go's frameless functions by their pcsp table in 4, Go's
 * 128-byte and over-StackBig frames and the pcsp check of its rows in 5,
 * Go's TOPFRAME and SPWRITE functions by their funcFlag in 6),
 * so each
 * extraction keeps its own entries and trecords of two versions sharing a
 * cache neither use each other's entries nor overwrite them.
 * trecord --no-delta-cache neither reads nor writes it.
 *
 * Entry format (little-endian), every byte checked before use:
 *   magic "TRECDLT\n" (8) | version u32 (1) | build-id length u32 (1..64)
 *   | build-id | num u64 (<= TREC_MAX_STACK_DELTAS) | fdes u64
 *   | unsupported_rules u64 | num x entry (24 bytes: addr u64,
 *   command u16, cfa_reg u8, fp_rule u8, flags u8, pad u8 (0),
 *   cfa_param s32, fp_param s32, pad u16 (0)) | CRC-32 (zlib) u32 of all
 *   bytes before it.
 * Entries are sorted by addr. Anything else (another version, a size that
 * is not exactly this, a bad CRC, unsorted or out-of-range fields, another
 * build-id) makes the entry ignored with a warning, and the deltas are
 * extracted again and the entry rewritten.
 */
#ifndef TREC_DELTA_CACHE_H
#define TREC_DELTA_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/unwind/unwind_tables.h"

#define TREC_DELTA_CACHE_VERSION 1
/* deltas-x<E>: bump E when trec_deltas_extract() gives other entries for
 * the same file. */
#define TREC_DELTA_CACHE_SUBDIR "deltas-x6"

/* The cache directory for the environment, or -ENOENT (no HOME). */
int trec_delta_cache_dir(char *buf, size_t len);

/* Encodes d for build_id into a new buffer (*out, *len; caller frees). */
int trec_delta_cache_encode(const struct trec_file_deltas *d, const uint8_t *build_id,
			    size_t build_id_len, uint8_t **out, size_t *len);
/* Parses an entry; it must be for build_id. 0, -EINVAL (with why) or -ENOMEM. */
int trec_delta_cache_parse(const uint8_t *buf, size_t len, const uint8_t *build_id,
			   size_t build_id_len, struct trec_file_deltas *d, char *why,
			   size_t why_len);

/*
 * The deltas of the ELF file open at fd from the cache in dir: 0 (d filled),
 * -ENOENT (no build-id, no entry), or another negative errno for an entry
 * that is unreadable or damaged (a warning is printed unless quiet).
 */
int trec_delta_cache_get(const char *dir, int fd, struct trec_file_deltas *d, bool quiet);
/* Stores d as the entry for the file open at fd (atomically: a temporary
 * file renamed into place). 0 or a negative errno; -ENOENT without a
 * build-id. */
int trec_delta_cache_put(const char *dir, int fd, const struct trec_file_deltas *d);

#endif /* TREC_DELTA_CACHE_H */
