// SPDX-License-Identifier: MIT
/*
 * CPython 3.8-3.10 line tables; see python_lines_old.h. Both are byte
 * pairs (address increment, signed line increment):
 *   co_lnotab (3.8, 3.9): the increment pair is applied when the address
 *     reached is <= the instruction's; bytes both.
 *   co_linetable (3.10): each pair is a range [start, start + incr) of
 *     bytes with line += its line increment, or no line when it is -128.
 */
#include "report/interp/python/python_lines_old.h"

int trec_py_line_of_lnotab(const uint8_t *table, size_t len, int firstlineno, int64_t lasti)
{
	int64_t line = firstlineno, addr = 0;

	if (lasti < 0)
		return firstlineno;
	if (!table)
		return -1;
	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += table[i];
		if (addr > lasti)
			break;
		line += (int8_t)table[i + 1];
	}
	/* A hostile table can push the sum anywhere in int64 range over 1 MiB
	 * of pairs; only int range is a line. */
	return line < 0 || line > INT32_MAX ? -1 : (int)line;
}

int trec_py_line_of_310(const uint8_t *table, size_t len, int firstlineno, int64_t lasti)
{
	int64_t line = firstlineno, start = 0, addr;

	if (lasti < 0)
		return firstlineno;
	/* (lasti comes from the recording: past what doubles in int64 no
	 * table reaches it) */
	if (!table || lasti > INT64_MAX / 2)
		return -1;
	addr = lasti * 2; /* code units to bytes */
	for (size_t i = 0; i + 1 < len; i += 2) {
		int64_t end = start + table[i];
		int8_t ldelta = (int8_t)table[i + 1];

		if (ldelta != -128)
			line += ldelta;
		if (addr >= start && addr < end)
			return ldelta == -128 || line < 0 || line > INT32_MAX ? -1 : (int)line;
		start = end;
	}
	return -1;
}
