// SPDX-License-Identifier: MIT
/*
 * The 3.11+ location-table decoder (report/python_lines.c) against
 * CPython's own co_positions() for every code object of a few large
 * sources, under every CPython 3.11+ on the machine; plus hostile tables.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/interp/python/python_lines.h"
#include "python_check.h"

static size_t unhex(const char *h, uint8_t *out, size_t max)
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

/* Compares every code unit of every code object python prints. */
static void against(const char *python, const char *sources)
{
	static char line[1 << 20];
	static uint8_t table[1 << 18];
	char cmd[8192];
	unsigned long codes = 0, units = 0, bad = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s %s/tests/python/dump_linetables.py %s", python,
		 getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".", sources);
	p = popen(cmd, "r");
	if (!p) {
		CHECK(0, "%s: run dump_linetables.py", python);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char *hex = strchr(line, '\t'), *lines;
		int first = atoi(line);
		size_t n;

		if (!hex || !(lines = strchr(hex + 1, '\t')))
			continue;
		*lines++ = 0;
		n = unhex(hex + 1, table, sizeof(table));
		codes++;
		for (long unit = 0; *lines && *lines != '\n'; unit++) {
			int want = (int)strtol(lines, &lines, 10);
			int got = trec_py_line_of(table, n, first, unit);

			units++;
			if (got != want && bad++ < 5)
				printf("  code line %d unit %ld: got %d want %d\n", first, unit, got, want);
			if (*lines == ',')
				lines++;
		}
		/* Past the end: no line. */
		if (trec_py_line_of(table, n, first, 1 << 20) != -1)
			bad++;
	}
	pclose(p);
	CHECK(codes > 50 && !bad, "%s: lines of %lu code units in %lu code objects equal co_positions (%lu differ)",
	      python, units, codes, bad);
}

static void hostile(void)
{
	/* One entry: code 13 (svarint delta, no columns), 2 units, delta +3. */
	const uint8_t ok[] = { 0x80 | 13 << 3 | 1, 6 };
	const uint8_t bad_start[] = { 0x05 };
	const uint8_t truncated[] = { 0x80 | 14 << 3, 0x42 };     /* varint continues past end */
	const uint8_t endless[] = { 0x80 | 13 << 3, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f };
	uint8_t junk[4096];
	unsigned seed = 1;

	CHECK(trec_py_line_of(ok, sizeof(ok), 10, 0) == 13 && trec_py_line_of(ok, sizeof(ok), 10, 1) == 13,
	      "delta entry covers its code units");
	CHECK(trec_py_line_of(ok, sizeof(ok), 10, 2) == -1, "past the table: no line");
	CHECK(trec_py_line_of(ok, sizeof(ok), 10, -1) == 10, "lasti -1 (frame not started): first line");
	CHECK(trec_py_line_of(bad_start, sizeof(bad_start), 1, 0) == -1, "entry without start bit rejected");
	CHECK(trec_py_line_of(truncated, sizeof(truncated), 1, 0) == -1, "truncated varint rejected");
	CHECK(trec_py_line_of(endless, sizeof(endless), 1, 0) == -1, "overlong varint rejected");
	CHECK(trec_py_line_of(NULL, 0, 7, 0) == -1, "empty table");
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand_r(&seed) % sizeof(junk));

		for (size_t i = 0; i < n; i++)
			junk[i] = (uint8_t)rand_r(&seed);
		trec_py_line_of(junk, n, rand_r(&seed), rand_r(&seed) % 5000);
	}
	CHECK(1, "random tables decode without crashing");
}

int main(void)
{
	const char *py[] = { "/usr/bin/python3.11", NULL };
	const char *src = "/usr/lib/python3.11/json/encoder.py /usr/lib/python3.11/argparse.py "
			  "/usr/lib/python3.11/typing.py";
	char sources[4096];
	glob_t g = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	hostile();
	snprintf(sources, sizeof(sources), "%s %s/tests/python/chain.py", src,
		 getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".");
	if (access(py[0], X_OK) || access("/usr/lib/python3.11/typing.py", R_OK))
		printf("note: no Debian python3.11, reference check limited to pyenv\n");
	else
		against(py[0], sources);
	glob("/root/.pyenv/versions/3.1[123]*/bin/python3.1[123]", 0, NULL, &g);
	for (size_t i = 0; i < g.gl_pathc; i++)
		against(g.gl_pathv[i], sources);
	globfree(&g);
	return failures ? 1 : 0;
}
