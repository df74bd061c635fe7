/* SPDX-License-Identifier: MIT */
/*
 * A persistent cache of what level sampled reads of a file, keyed by GNU
 * build-id, next to the delta cache (in the spirit of perf's build-id
 * cache): level sampled reads a library's DWARF at the end of every
 * recording, and opening it inflates its compressed debug sections whole
 * (libc's debug file: 50-150 ms, libasan or libpython: 0.1-1 s under
 * load), whatever few addresses the samples need. An entry holds the
 * file's archive at level symbols and every CU's line rows and inlined
 * calls as collected, with the map of which CU libdwfl gives each address
 * (archive_units.c): a later recording replays the collection of the CUs
 * its own addresses select, in the same order, so the archive is the one
 * the direct build gives, byte for byte.
 *
 * Location: <delta cache dir>/symbols-x<E>/<hex build-id>, E the
 * collection's version (bump it when arc_collect gives other rows for the
 * same file). trecord --no-symbol-cache neither reads nor writes it.
 * Files without a build-id, and Go binaries (whose sampled archive reads
 * .gopclntab per address), are not cached.
 *
 * Entry (little-endian): magic "TRECSYM\n" (8) | version u32 (1)
 *   | build-id length u32 (1..64) | build-id | archive length u64
 *   | archive (level symbols, FORMAT.md's layout) | has_cu u32 (0/1)
 *   | nstrings u32 | nunits u32 | nlines u32 | ninls u32 | nruns u32
 *   | nstrings x (length u32, bytes without NUL)
 *   | nunits x (lines u32, inlines u32): the rows of each unit in turn
 *   | nlines x (addr u64, file u32 (0 gap, else string + 1), line u32)
 *   | ninls x (lo u64, hi u64, depth u32 (1..64), name u32 (string),
 *     call_file u32 (0 or string + 1), call_line u32)
 *   | nruns x (start u64, unit u32 (UINT32_MAX: none)), sorted by start
 *   | CRC-32 (zlib) u32 of all bytes before it.
 * Anything else (another version or build-id, sizes that do not add up,
 * an index out of range, a bad CRC, an archive that does not parse or is
 * not level symbols of this build-id) is ignored with a warning, and the
 * entry is collected and written again.
 */
#ifndef TREC_RECORD_SYMBOL_CACHE_H
#define TREC_RECORD_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/archive/archive.h"

#define TREC_SYMBOL_CACHE_VERSION 1
#define TREC_SYMBOL_CACHE_SUBDIR "symbols-x1"

/* The entry of the file at path, whose build-id is bid: SUBDIR/<build-id
 * in hex>-<file size in hex> under dir. 0, or -ENOENT when path is not
 * that file. */
int trec_symbol_cache_entry(const char *dir, const char *path, const uint8_t *bid,
			    size_t bid_len, char *entry, size_t len);

/* Whether trec_archive_write_all uses the cache at level sampled, in the
 * delta cache's directory (trec_delta_cache_dir: the environment's). Set
 * once at start-up, before any recording thread; off until then. */
void trec_symbol_cache_use(bool on);
const char *trec_symbol_cache_dir(void);

struct arc_units;
/* Encodes an entry from a level-symbols archive and the file's units
 * (caller frees *out). 0, -EINVAL or -ENOMEM. */
int trec_symbol_cache_encode(const uint8_t *archive, size_t len, const struct arc_units *u,
			     const uint8_t *bid, size_t bid_len, uint8_t **out, size_t *out_len);
/* Parses an entry for bid: the archive (points into buf, checked when
 * parsed) and the units (u, freed with arc_units_free). 0, -EINVAL (why
 * filled) or -ENOMEM. */
int trec_symbol_cache_parse(const uint8_t *buf, size_t len, const uint8_t *bid,
			    size_t bid_len, const uint8_t **archive, size_t *archive_len,
			    struct arc_units *u, char *why, size_t why_len);

/* How trec_symbol_cache_sampled answered. */
enum trec_symbol_cache_how {
	TREC_SYMCACHE_HIT = 1,   /* from an entry */
	TREC_SYMCACHE_BUILT,     /* entry collected (and stored if it could be) */
};

/*
 * The level-sampled archive of the file at path (build-id bid, bid_len >
 * 0) through the cache in dir: 0 with *out, *out_len, st and *how filled;
 * -ENOENT when the cache cannot serve this file (no build-id, another
 * build-id at path, a Go binary, a CU map libdwfl does not follow): the caller
 * builds it directly, which also reports those errors. Never a different
 * archive than trec_archive_build_sampled's.
 */
int trec_symbol_cache_sampled(const char *dir, const char *path, const uint8_t *bid,
			      size_t bid_len, const uint64_t *addrs, size_t naddrs,
			      uint8_t **out, size_t *out_len, struct trec_archive_stats *st,
			      int *how);

#endif /* TREC_RECORD_SYMBOL_CACHE_H */
