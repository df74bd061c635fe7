// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the Ruby INTERP_CODE payload decoder
 * (format/trec_rbcode.c) and MRI's succinct position index decoder
 * (record/interp/ruby/ruby_iseq.c). The first input byte picks which:
 * even, the payload (every decoded one is looked up and re-encoded to the
 * same bytes); odd, an index (two u32s: max_pos and size, then the
 * table's words).
 */
#include <stdlib.h>
#include <string.h>
#include "record/interp/ruby/ruby_iseq.h"
#include "trec_rbcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void payload(const uint8_t *data, size_t size)
{
	struct trec_rbcode c;
	uint8_t *buf;
	size_t len;

	if (trec_rbcode_decode(data, size, &c))
		return;
	(void)trec_rbcode_line_of(&c, c.num_lines ? trec_rbcode_line_at(&c, 0).pos + 1 : 7);
	{
		struct trec_rbcode_line *rows = calloc(c.num_lines ? c.num_lines : 1, sizeof(*rows));

		if (!rows)
			return;
		for (uint32_t i = 0; i < c.num_lines; i++)
			rows[i] = trec_rbcode_line_at(&c, i);
		c.lines = rows;
		if (trec_rbcode_encode(&c, &buf, &len) || len != size || memcmp(buf, data, size))
			abort(); /* decode accepted what encode does not give back */
		free(buf);
		free(rows);
	}
}

static void succ(const uint8_t *data, size_t size)
{
	uint32_t max_pos, n, *pos;
	uint64_t *table;
	size_t words;

	if (size < 8)
		return;
	memcpy(&max_pos, data, 4);
	memcpy(&n, data + 4, 4);
	max_pos %= 1u << 16;
	n %= 1u << 12;
	words = (size - 8) / 8;
	table = malloc(words ? words * 8 : 8);
	pos = malloc((n ? n : 1) * sizeof(*pos));
	if (table && pos) {
		memcpy(table, data + 8, words * 8);
		if (trec_rb_succ_positions(table, words, max_pos, n, pos) == 0)
			for (uint32_t i = 1; i < n; i++)
				if (pos[i] <= pos[i - 1])
					abort(); /* positions must increase */
	}
	free(table);
	free(pos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		succ(data + 1, size - 1);
	else
		payload(data + 1, size - 1);
	return 0;
}
