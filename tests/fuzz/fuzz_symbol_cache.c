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
#include <zlib.h>

#include "record/archive/archive_build.h"
#include "record/archive/symbol_cache.h"

/* The build-id the fuzzed entries are for (the seeds use it too). */
static const uint8_t bid[8] = "fuzzbid!";

/* The two frees the codec needs, without the rest of the encoder. */
void arc_builder_free(struct arc_builder *b)
{
	for (size_t i = 0; i < b->t.num_strings; i++)
		free(b->strs[i]);
	free(b->strs);
	free(b->t.lines);
	memset(b, 0, sizeof(*b));
}

void arc_units_free(struct arc_units *u)
{
	arc_builder_free(&u->b);
	free(u->inls);
	free(u->units);
	free(u->runs);
	memset(u, 0, sizeof(*u));
}

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
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	n = size - 1;
	if ((data[0] & 1) && n >= 4) {
		uint32_t c = crc32(0, buf, n - 4);

		for (int i = 0; i < 4; i++)
			buf[n - 4 + i] = c >> (8 * i);
	}
	if (!trec_symbol_cache_parse(buf, n, bid, sizeof(bid), &arc, &alen, &u, why,
				     sizeof(why))) {
		size_t m;

		check(&u);
		if (trec_symbol_cache_encode(arc, alen, &u, bid, sizeof(bid), &again, &m) ||
		    m != n || memcmp(again, buf, n))
			abort();
		free(again);
		arc_units_free(&u);
	}
	free(buf);
	return 0;
}
