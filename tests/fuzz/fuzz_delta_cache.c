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
#include "record/unwind/delta_cache.h"
#include "tests/fuzz/fuzz_cache_entry.h"

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
	buf = fuzz_cache_entry(data, size, &n);
	if (!trec_delta_cache_parse(buf, n, fuzz_bid, sizeof(fuzz_bid), &d, why, sizeof(why))) {
		size_t m;

		if (trec_delta_cache_encode(&d, fuzz_bid, sizeof(fuzz_bid), &again, &m) || m != n ||
		    memcmp(again, buf, n))
			abort();
		free(again);
		trec_file_deltas_free(&d);
	}
	free(buf);
	return 0;
}
