// SPDX-License-Identifier: MIT
/*
 * The perf map parser (record/jit/perfmap.c) on the lines V8, HotSpot and
 * CPython write, and on hostile ones: overlong lines, bad hex, huge and
 * overflowing sizes, NULs, missing names, limits, input cut anywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/jit/perfmap.h"
#include "unit_check.h"

static int parse(const char *text, const struct trec_jit_filter *f, struct trec_jit_table *t)
{
	trec_jit_table_init(t, NULL);
	return trec_perfmap_parse_mem(text, strlen(text), f, t);
}

static bool entry_is(const struct trec_jit_table *t, uint32_t i, uint64_t start, uint64_t size,
		     const char *name)
{
	return i < t->n && t->entries[i].start == start && t->entries[i].size == size &&
	       !strcmp(t->entries[i].name, name) && !t->entries[i].load_ns &&
	       !t->entries[i].end_ns && !t->entries[i].num_lines;
}

static void test_producers(void)
{
	struct trec_jit_table t;
	int err = parse("7f0000001000 40 LazyCompile:*fib /app/fib.js:3\n"
			"0x00007f0000002000 0x0000000000000100 java.lang.String::hashCode()\n"
			"7f3529fcf759 b py::compute:/srv/app.py\n"
			"1000\t20\tname with  two spaces\tand a tab\n"
			"2000 10 crlf\r\n"
			"\n"
			"3000 8 last line without newline", NULL, &t);

	CHECK("perfmap: parses", err == 0 && t.n == 6 && t.bad == 0);
	CHECK("perfmap: V8 line", entry_is(&t, 0, 0x7f0000001000, 0x40, "LazyCompile:*fib /app/fib.js:3"));
	CHECK("perfmap: HotSpot line (0x, zero padded)",
	      entry_is(&t, 1, 0x7f0000002000, 0x100, "java.lang.String::hashCode()"));
	CHECK("perfmap: CPython line", entry_is(&t, 2, 0x7f3529fcf759, 0xb, "py::compute:/srv/app.py"));
	CHECK("perfmap: name verbatim after one tab separator",
	      entry_is(&t, 3, 0x1000, 0x20, "name with  two spaces\tand a tab"));
	CHECK("perfmap: a CR before the newline is dropped", entry_is(&t, 4, 0x2000, 0x10, "crlf"));
	CHECK("perfmap: a last line without newline is kept",
	      entry_is(&t, 5, 0x3000, 8, "last line without newline"));
	CHECK("perfmap: no flags", t.flags == 0);
	trec_jit_table_free(&t);
}

static void test_bad_lines(void)
{
	struct trec_jit_table t;
	int err = parse("zz 10 bad start\n"                    /* 1 */
			"1000 zz bad size\n"                   /* 2 */
			"1ffffffffffffffff 1 over 64 bits\n"   /* 3 */
			"ffffffffffffffff 2 past the end\n"    /* 4 */
			"1000 10\n"                            /* 5: no name */
			"1000 10 \n"                           /* 6: empty name */
			"1000  10 two spaces\n"                /* 7 */
			"0x 10 no digits\n"                    /* 8 */
			"4000 10 good\n"                       /* 9 */
			"5000 0 empty code\n"                  /* dropped, not bad */
			"5000-10 dash\n",                      /* 11 */
			NULL, &t);

	CHECK("perfmap: bad lines are refused, the good one kept",
	      err == 0 && t.n == 1 && entry_is(&t, 0, 0x4000, 0x10, "good"));
	CHECK("perfmap: every bad line counted", t.bad == 9);
	CHECK("perfmap: the first reason is kept with its line number",
	      !strcmp(t.why, "line 1: bad start address"));
	trec_jit_table_free(&t);

	static const char nul[] = "1000 10 a\0b\n2000 10 ok\n";
	trec_jit_table_init(&t, NULL);
	trec_perfmap_parse_mem(nul, sizeof(nul) - 1, NULL, &t);
	CHECK("perfmap: a line with a NUL is refused", t.n == 1 && t.bad == 1 &&
	      entry_is(&t, 0, 0x2000, 0x10, "ok") && strstr(t.why, "NUL"));
	trec_jit_table_free(&t);
}

static void test_overlong(void)
{
	struct trec_jit_limits lim = TREC_JIT_LIMITS_DEFAULT;
	struct trec_jit_table t;
	struct trec_perfmap_parser p;
	size_t big = 100000;
	char *s = malloc(big + 64);

	lim.max_name = 64;
	memcpy(s, "1000 10 ", 8);
	memset(s + 8, 'x', big);
	strcpy(s + 8 + big, "\n2000 10 after\n");
	trec_jit_table_init(&t, &lim);
	trec_perfmap_init(&p, &t, NULL);
	/* in pieces: the overlong line spans many feeds */
	for (size_t off = 0, n = strlen(s); off < n; off += 997)
		trec_perfmap_feed(&p, s + off, n - off < 997 ? n - off : 997);
	CHECK("perfmap: overlong line refused, the next one parsed",
	      trec_perfmap_finish(&p) == 0 && t.n == 1 && entry_is(&t, 0, 0x2000, 0x10, "after") &&
	      t.bad == 1 && strstr(t.why, "longer than"));
	trec_jit_table_free(&t);

	/* a name just within the limit is kept whole */
	memset(s + 8, 'y', 64);
	strcpy(s + 8 + 64, "\n");
	trec_jit_table_init(&t, &lim);
	trec_perfmap_parse_mem(s, strlen(s), NULL, &t);
	CHECK("perfmap: a name of max_name bytes is kept", t.n == 1 && strlen(t.entries[0].name) == 64);
	trec_jit_table_free(&t);
	free(s);
}

static void test_filter_and_order(void)
{
	static const uint64_t pcs[] = { 0x1010, 0x3000, 0x9000 };
	struct trec_jit_filter f = { pcs, 3 };
	struct trec_jit_table t;

	parse("1000 100 old\n"        /* holds 0x1010 */
	      "2000 100 cold\n"       /* holds none */
	      "1000 20 new\n"         /* holds 0x1010 again: after "old" */
	      "2f00 101 warm\n"       /* holds 0x3000 */
	      "8000 1000 ends-at-9000\n" /* [0x8000, 0x9000): 0x9000 is outside */
	      "9000 1 exact\n", &f, &t);
	CHECK("perfmap: the filter keeps entries holding a sampled pc, in file order",
	      t.n == 4 && !strcmp(t.entries[0].name, "old") && !strcmp(t.entries[1].name, "new") &&
	      !strcmp(t.entries[2].name, "warm") && !strcmp(t.entries[3].name, "exact"));
	CHECK("perfmap: filter covers is end-exclusive",
	      !trec_jit_filter_covers(&f, 0x8000, 0x1000) && trec_jit_filter_covers(&f, 0x8000, 0x1001));
	trec_jit_table_free(&t);
}

static void test_limits(void)
{
	struct trec_jit_limits lim = TREC_JIT_LIMITS_DEFAULT;
	struct trec_jit_table t;
	char line[64], *text = calloc(100, 32);

	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "%x 10 f%d\n", 0x1000 + i * 0x10, i);
		strcat(text, line);
	}
	lim.max_entries = 10;
	trec_jit_table_init(&t, &lim);
	trec_perfmap_parse_mem(text, strlen(text), NULL, &t);
	CHECK("perfmap: max_entries stops the table, marked truncated",
	      t.n == 10 && (t.flags & TREC_JIT_F_TRUNCATED) && t.bad == 0);
	trec_jit_table_free(&t);

	lim = TREC_JIT_LIMITS_DEFAULT;
	lim.max_file_bytes = 100; /* cuts the 10th line (11 bytes per line) */
	trec_jit_table_init(&t, &lim);
	trec_perfmap_parse_mem(text, strlen(text), NULL, &t);
	CHECK("perfmap: max_file_bytes stops reading, the cut line is not parsed",
	      t.n == 9 && (t.flags & TREC_JIT_F_TRUNCATED) && t.bad == 0);
	trec_jit_table_free(&t);

	/* byte by byte gives the same table as one piece */
	struct trec_perfmap_parser p;
	trec_jit_table_init(&t, NULL);
	trec_perfmap_init(&p, &t, NULL);
	for (size_t i = 0; text[i]; i++)
		trec_perfmap_feed(&p, text + i, 1);
	trec_perfmap_finish(&p);
	CHECK("perfmap: fed one byte at a time", t.n == 100 && !strcmp(t.entries[99].name, "f99"));
	trec_jit_table_free(&t);

	int fd = memfd_create("perfmap", 0);
	CHECK("perfmap: memfd", fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	lseek(fd, 0, SEEK_SET);
	trec_jit_table_init(&t, NULL);
	CHECK("perfmap: parse_fd reads the file", trec_perfmap_parse_fd(fd, NULL, &t) == 0 && t.n == 100);
	trec_jit_table_free(&t);
	close(fd);
	free(text);
}

/* Random damage to a good file never crashes (ASan/UBSan build) and
 * never yields an entry whose range wraps or whose name holds a NUL. */
static void test_mutations(void)
{
	const char *good = "7f0000001000 40 LazyCompile:*fib /app/fib.js:3\n"
			   "0x00007f0000002000 0x0000000000000100 java.lang.String::hashCode()\n"
			   "1000 20 x\n";
	size_t n = strlen(good);
	char buf[256];
	bool ok = true;

	srand(1);
	for (int iter = 0; iter < 20000; iter++) {
		struct trec_jit_table t;
		size_t len = (size_t)rand() % (n + 1);

		memcpy(buf, good, n);
		for (int k = rand() % 4; k >= 0; k--)
			buf[rand() % n] = (char)(rand() % 3 ? rand() : "0 \nxX"[rand() % 5]);
		trec_jit_table_init(&t, NULL);
		trec_perfmap_parse_mem(buf, len, NULL, &t);
		for (uint32_t i = 0; i < t.n; i++)
			ok &= t.entries[i].size && t.entries[i].start + t.entries[i].size >= t.entries[i].start &&
			      t.entries[i].name[0];
		trec_jit_table_free(&t);
	}
	CHECK("perfmap: 20000 damaged inputs, entries always sane", ok);
}

int main(void)
{
	test_producers();
	test_bad_lines();
	test_overlong();
	test_filter_and_order();
	test_limits();
	test_mutations();
	return failures ? 1 : 0;
}
