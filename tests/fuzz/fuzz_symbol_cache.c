// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the symbol cache's entry parser
 * (record/archive/symbol_cache_codec.c): trecord reads these files from
 * the user's cache directory, so any bytes must be refused or parsed,
 * never crash. Bit 0 of the first byte rewrites the trailing CRC first, so
 * the checks behind it are reached. Rules: an accepted entry's indices
 * are in range, and it re-encodes to exactly its bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "record/archive/archive_build.h"
#include "record/archive/symbol_cache.h"
#include "tests/fuzz/fuzz_cache_entry.h"

static void check(const struct arc_units *u)
{
	size_t ns = u->b.t.num_strings;
	for (size_t i = 0; i < u->b.t.num_lines; i++)
		if (u->b.t.lines[i].file > ns)
			abort();
	for (size_t i = 0; i < u->ninls; i++)
		if (u->inls[i].name >= ns || u->inls[i].call_file > ns || !u->inls[i].depth)
			abort();
	for (size_t i = 0; i < u->nruns; i++)
		if (u->runs[i].unit != UINT32_MAX && u->runs[i].unit >= u->nunits)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arc_units u;
	const uint8_t *arc;
	uint8_t *buf, *again;
	size_t n, alen;
	char why[200];

	if (!size)
		return 0;
	buf = fuzz_cache_entry(data, size, &n);
	if (!trec_symbol_cache_parse(buf, n, fuzz_bid, sizeof(fuzz_bid), &arc, &alen, &u, why,
				     sizeof(why))) {
		size_t m;

		check(&u);
		if (trec_symbol_cache_encode(arc, alen, &u, fuzz_bid, sizeof(fuzz_bid), &again, &m) ||
		    m != n || memcmp(again, buf, n))
			abort();
		free(again);
		arc_units_free(&u);
	}
	free(buf);
	return 0;
}
