// SPDX-License-Identifier: MIT
/*
 * CPython 3.11+ location table decoder; see python_lines.h.
 *
 * An entry starts with a byte that has bit 7 set: bits 3..6 are a code,
 * bits 0..2 the number of code units covered, minus one. The code says
 * what follows (continuation bytes never have bit 7 set):
 *   15  no location              14  long: svarint line delta, 3 varints
 *   13  svarint line delta only  10..12  line delta code-10, 2 column bytes
 *   0..9  same line, 1 column byte
 * varints are 6-bit groups, least significant first, bit 6 = more;
 * a signed varint is zigzag-coded in its low bit.
 */
#include "report/interp/python/python_lines.h"

struct reader {
	const uint8_t *p, *end;
	int bad;
};

static unsigned byte(struct reader *r)
{
	if (r->p >= r->end || (*r->p & 0x80)) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint32_t varint(struct reader *r)
{
	unsigned b = byte(r);
	uint32_t v = b & 63;

	for (unsigned shift = 6; (b & 64) && !r->bad; shift += 6) {
		b = byte(r);
		if (shift > 30) {
			r->bad = 1;
			break;
		}
		v |= (uint32_t)(b & 63) << shift;
	}
	return v;
}

static int32_t svarint(struct reader *r)
{
	uint32_t u = varint(r);

	return (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

int trec_py_line_of(const uint8_t *table, size_t len, int firstlineno, int64_t lasti)
{
	struct reader r;
	int64_t line = firstlineno, addr = 0;

	if (lasti < 0)
		return firstlineno;
	if (!table || !len)
		return -1;
	r = (struct reader){ table, table + len, 0 };
	while (r.p < r.end) {
		unsigned first = *r.p++, code, units;
		int64_t entry_line;

		if (!(first & 0x80))
			return -1;
		code = (first >> 3) & 15;
		units = (first & 7) + 1;
		switch (code) {
		case 15:
			entry_line = -1;
			break;
		case 14:
			line += svarint(&r);
			entry_line = line;
			varint(&r);
			varint(&r);
			varint(&r);
			break;
		case 13:
			line += svarint(&r);
			entry_line = line;
			break;
		case 10:
		case 11:
		case 12:
			line += code - 10;
			entry_line = line;
			byte(&r);
			byte(&r);
			break;
		default:
			entry_line = line;
			byte(&r);
			break;
		}
		if (r.bad || line < INT32_MIN || line > INT32_MAX)
			return -1;
		if (lasti < addr + units)
			return (int)entry_line;
		addr += units;
	}
	return -1;
}
