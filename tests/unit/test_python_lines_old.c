// SPDX-License-Identifier: MIT
/*
 * The CPython 3.8-3.10 line-table decoders (report/interp/python/
 * python_lines_old.c) against each interpreter's own view of every
 * instruction's line (tests/python/dump_linetables_old.py) for every code
 * object of a few large sources, under pyenv's 3.8, 3.9 and 3.10 where
 * installed; plus hostile tables.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/python/python_lines_old.h"
#include "python_lines_check.h"

/* minor 10: the f_lasti BPF reports is the code unit index; 8, 9: bytes. */
static int line_of(const uint8_t *table, size_t n, int first, long unit, int minor)
{
	return minor >= 10 ? trec_py_line_of_310(table, n, first, unit)
			   : trec_py_line_of_lnotab(table, n, first, unit * 2);
}

static void against(const char *python, int minor, const char *lib)
{
	const char *root = getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".";
	char cmd[8192]; /* (lib is < 1 KiB: 5 paths fit) */

	snprintf(cmd, sizeof(cmd),
		 "%s %s/tests/python/dump_linetables_old.py %s/json/encoder.py %s/argparse.py "
		 "%s/typing.py %s/tests/python/busy.py",
		 python, root, lib, lib, lib, root);
	lines_check_dump(cmd, python, line_of, minor, 0, "the interpreter's");
}

static void hostile(void)
{
	/* lnotab: +6 bytes +2 lines, +4 bytes -1 line */
	const uint8_t lnotab[] = { 6, 2, 4, 0xff };
	/* 3.10: [0,4) line+1, [4,6) no line, [6,10) line+2 */
	const uint8_t lt[] = { 4, 1, 2, 0x80, 4, 2 };
	uint8_t junk[4096];
	unsigned seed = 7;

	CHECK(trec_py_line_of_lnotab(lnotab, sizeof(lnotab), 10, 0) == 10 &&
		      trec_py_line_of_lnotab(lnotab, sizeof(lnotab), 10, 6) == 12 &&
		      trec_py_line_of_lnotab(lnotab, sizeof(lnotab), 10, 10) == 11,
	      "lnotab: increments apply from their address on");
	CHECK(trec_py_line_of_lnotab(lnotab, 3, 10, 10) == 12, "lnotab: a half pair is ignored");
	CHECK(trec_py_line_of_lnotab(lnotab, sizeof(lnotab), 10, -1) == 10,
	      "lnotab: f_lasti -1 (frame not started): first line");
	CHECK(trec_py_line_of_310(lt, sizeof(lt), 10, 1) == 11 &&
		      trec_py_line_of_310(lt, sizeof(lt), 10, 2) == -1 &&
		      trec_py_line_of_310(lt, sizeof(lt), 10, 4) == 13,
	      "3.10 table: ranges, a range without line");
	CHECK(trec_py_line_of_310(lt, sizeof(lt), 10, 5) == -1, "3.10 table: past the end, no line");
	CHECK(trec_py_line_of_310(lt, sizeof(lt), 10, -1) == 10, "3.10 table: lasti -1: first line");
	CHECK(trec_py_line_of_310(NULL, 0, 7, 0) == -1 && trec_py_line_of_lnotab(NULL, 0, 7, 0) == -1,
	      "no table: no line");
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand_r(&seed) % sizeof(junk));

		for (size_t i = 0; i < n; i++)
			junk[i] = (uint8_t)rand_r(&seed);
		trec_py_line_of_310(junk, n, rand_r(&seed), rand_r(&seed) % 5000);
		trec_py_line_of_lnotab(junk, n, rand_r(&seed), rand_r(&seed) % 5000);
	}
	CHECK(1, "random tables decode without crashing");
}

int main(void)
{
	glob_t g = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	hostile();
	glob("/root/.pyenv/versions/3.[89].*/bin/python3.[89]", 0, NULL, &g);
	glob("/root/.pyenv/versions/3.10.*/bin/python3.10", GLOB_APPEND, NULL, &g);
	if (!g.gl_pathc)
		printf("note: no pyenv CPython 3.8-3.10, reference check skipped\n");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char lib[1024], *bin = strstr(g.gl_pathv[i], "/bin/python3.");
		int minor = bin ? atoi(bin + strlen("/bin/python3.")) : 0;

		snprintf(lib, sizeof(lib), "%.*s/lib/python3.%d", (int)(bin - g.gl_pathv[i]),
			 g.gl_pathv[i], minor);
		against(g.gl_pathv[i], minor, lib);
	}
	globfree(&g);
	return failures ? 1 : 0;
}
