/* SPDX-License-Identifier: MIT */
/* The input of the cache-entry fuzz targets (fuzz_delta_cache.c,
 * fuzz_symbol_cache.c): an entry after one mode byte. */
#ifndef TREC_FUZZ_CACHE_ENTRY_H
#define TREC_FUZZ_CACHE_ENTRY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The build-id the fuzzed entries are for (the seeds use it too). */
static const uint8_t fuzz_bid[8] = "fuzzbid!";

/* A copy of the entry in data (size > 0) and its length in *n. Bit 0 of
 * the mode byte rewrites the trailing CRC first, so the checks behind it
 * are reached. Free it. */
static inline uint8_t *fuzz_cache_entry(const uint8_t *data, size_t size, size_t *n)
{
	uint8_t *buf = malloc(size);

	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	*n = size - 1;
	if ((data[0] & 1) && *n >= 4) {
		uint32_t c = crc32(0, buf, *n - 4);

		for (int i = 0; i < 4; i++)
			buf[*n - 4 + i] = c >> (8 * i);
	}
	return buf;
}

#endif /* TREC_FUZZ_CACHE_ENTRY_H */
