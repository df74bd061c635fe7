// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the stack-delta cache's entry parser
 * (record/unwind/delta_cache_codec.c): trecord reads these files from the
 * user's cache directory, so any bytes must be refused or parsed, never
 * crash. Bit 0 of the first byte rewrites the trailing CRC first, so the
 * checks behind it are reached. Rule: an accepted entry re-encodes to
 * exactly its bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "record/unwind/delta_cache.h"

/* The build-id the fuzzed entries are for (the seeds use it too). */
static const uint8_t bid[8] = "fuzzbid!";

void trec_file_deltas_free(struct trec_file_deltas *d)
{
	free(d->entries);
	memset(d, 0, sizeof(*d));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_file_deltas d;
	uint8_t *buf, *again;
	size_t n;
	char why[160];

	if (!size)
		return 0;
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	n = size - 1;
	if ((data[0] & 1) && n >= 4) {
		uint32_t c = crc32(0, buf, n - 4);

		for (int i = 0; i < 4; i++)
			buf[n - 4 + i] = c >> (8 * i);
	}
	if (!trec_delta_cache_parse(buf, n, bid, sizeof(bid), &d, why, sizeof(why))) {
		size_t m;

		if (trec_delta_cache_encode(&d, bid, sizeof(bid), &again, &m) || m != n ||
		    memcmp(again, buf, n))
			abort();
		free(again);
		trec_file_deltas_free(&d);
	}
	free(buf);
	return 0;
}
