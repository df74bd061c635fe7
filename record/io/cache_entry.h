/* SPDX-License-Identifier: MIT */
/* What the entries of trecord's persistent caches (stack deltas, symbol
 * archives) share: the start "<magic:8><version:u32><build-id length:u32>
 * <build-id>" and a trailing CRC-32 of every byte before it (little-endian).
 * Pure: no I/O, so the codecs' fuzz targets link it alone. */
#ifndef TREC_RECORD_CACHE_ENTRY_H
#define TREC_RECORD_CACHE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

/* The bytes before an entry's build-id. */
#define TREC_CACHE_ENTRY_HEAD 16

/* Writes why an entry is refused into why; returns -EINVAL. */
int trec_cache_bad(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Checks an entry of len bytes read from the cache: the magic, the version,
 * the build-id (it must be bid, the file's own) and the CRC. 0, or -EINVAL
 * with why naming what failed (what names the cache: "delta cache"). The
 * body lies between TREC_CACHE_ENTRY_HEAD + bid_len and len - 4. */
int trec_cache_check_entry(const uint8_t *buf, size_t len, const char magic[8], uint32_t version,
			   const uint8_t *bid, size_t bid_len, const char *what, char *why,
			   size_t why_len);

#endif /* TREC_RECORD_CACHE_ENTRY_H */
