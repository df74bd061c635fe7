/* SPDX-License-Identifier: MIT */
/*
 * The table-driving loop of the line-table decoder tests
 * (test_python_lines.c, test_python_lines_old.c): runs a dump script
 * (tests/python/dump_linetables*.py) under one interpreter, which prints
 * per code object "first line TAB table hex TAB line,line,...", one line
 * per code unit, and checks the decoder against every unit.
 */
#ifndef TREC_PYTHON_LINES_CHECK_H
#define TREC_PYTHON_LINES_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "python_check.h"

/* The decoder under test: the line of code unit `unit`, -1 for none. */
typedef int (*lines_check_fn)(const uint8_t *table, size_t n, int first, long unit, int minor);

static size_t lines_check_unhex(const char *h, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (h[0] && h[1] && n < max) {
		unsigned v;

		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/*
 * Runs cmd (python is its name in messages) and compares line_of (given
 * minor) with every unit it prints; past_end: a unit far past the table
 * must have no line. oracle names what the dump's lines come from.
 */
static void lines_check_dump(const char *cmd, const char *python, lines_check_fn line_of,
			     int minor, int past_end, const char *oracle)
{
	static char line[1 << 20];
	static uint8_t table[1 << 18];
	unsigned long codes = 0, units = 0, bad = 0;
	FILE *p = popen(cmd, "r");

	if (!p) {
		CHECK(0, "%s: run %s", python, cmd);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char *hex = strchr(line, '\t'), *lines;
		int first = atoi(line);
		size_t n;

		if (!hex || !(lines = strchr(hex + 1, '\t')))
			continue;
		*lines++ = 0;
		n = lines_check_unhex(hex + 1, table, sizeof(table));
		codes++;
		for (long unit = 0; *lines && *lines != '\n'; unit++) {
			int want = (int)strtol(lines, &lines, 10);
			int got = line_of(table, n, first, unit, minor);

			units++;
			if (got != want && bad++ < 5)
				printf("  code line %d unit %ld: got %d want %d\n", first, unit, got, want);
			if (*lines == ',')
				lines++;
		}
		if (past_end && line_of(table, n, first, 1 << 20, minor) != -1)
			bad++;
	}
	pclose(p);
	CHECK(codes > 50 && !bad,
	      "%s: lines of %lu code units in %lu code objects equal %s (%lu differ)", python, units,
	      codes, oracle, bad);
}

#endif /* TREC_PYTHON_LINES_CHECK_H */
