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
#include "python_lines_check.h"

static int line_of(const uint8_t *table, size_t n, int first, long unit, int minor)
{
	(void)minor;
	return trec_py_line_of(table, n, first, unit);
}

/* Compares every code unit of every code object python prints. */
static void against(const char *python, const char *sources)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "%s %s/tests/python/dump_linetables.py %s", python,
		 getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".", sources);
	lines_check_dump(cmd, python, line_of, 0, 1, "co_positions");
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
