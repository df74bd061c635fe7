// SPDX-License-Identifier: MIT
/*
 * The report side of archives: joining SYMTAB parts per file id (in any
 * order, incomplete or repeated sets), and extraction as ELF debug files
 * that nm, addr2line and gdb read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/archive/archive.h"
#include "archive_testlib.h"
#include "trec_format.h"
#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"
#include "report/archive/archive_elf.h"

static int failures;
static int warnings;
static char last_warning[512];

static void check(int ok, const char *name)
{
	printf("%s: archive store: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void add_parts(struct trec_archive_store *s, uint64_t id, const uint8_t *p, size_t n,
		      uint32_t nparts, const uint32_t *order, uint32_t count)
{
	size_t per = (n + nparts - 1) / nparts;
	for (uint32_t k = 0; k < count; k++) {
		uint32_t i = order[k];
		size_t off = i * per, len = off + per > n ? n - off : per;
		struct trec_blob b = { .file_id = id, .subtype = TREC_SYMTAB_SUBTYPE(i, nparts),
				       .len = (uint32_t)len, .data = p + off };
		trec_archive_store_add(s, &b);
	}
}

static int same_as(const struct trec_archive *a, const uint8_t *p, size_t n)
{
	struct trec_archive *b = NULL;
	int ok = a && !trec_archive_parse(p, n, &b, NULL, 0) &&
		 trec_archive_tables(a)->num_syms == trec_archive_tables(b)->num_syms &&
		 trec_archive_tables(a)->num_lines == trec_archive_tables(b)->num_lines;
	trec_archive_free(b);
	return ok;
}

static void store_tests(const uint8_t *p, size_t n)
{
	struct trec_archive_store *s = trec_archive_store_new(on_warn, NULL);
	static const uint32_t fwd[] = { 0, 1, 2 }, rev[] = { 2, 0, 1 }, gap[] = { 0, 2 };
	add_parts(s, 1, p, n, 1, fwd, 1);
	add_parts(s, 2, p, n, 3, rev, 3);
	add_parts(s, 3, p, n, 3, gap, 2);
	/* A second archive of file 1 (another recording's; here garbage) is
	 * kept apart; a repeat of the first one adds nothing. */
	struct trec_blob junk = { .file_id = 1, .subtype = TREC_SYMTAB_SUBTYPE(0, 1), .len = 3,
				  .data = (const uint8_t *)"xyz" };
	trec_archive_store_add(s, &junk);
	add_parts(s, 2, p, n, 3, fwd, 3);
	/* A damaged one-part archive. */
	struct trec_blob bad = { .file_id = 4, .subtype = TREC_SYMTAB_SUBTYPE(0, 1),
				 .len = (uint32_t)(n / 2), .data = p };
	trec_archive_store_add(s, &bad);
	/* Another kind, and part numbers out of range. */
	struct trec_blob other = { .file_id = 5, .subtype = 7, .len = 3, .data = p };
	trec_archive_store_add(s, &other);
	struct trec_blob oob = { .file_id = 6, .subtype = TREC_SYMTAB_SUBTYPE(3, 2), .len = 3,
				 .data = p };
	warnings = 0;
	trec_archive_store_add(s, &oob);
	check(warnings == 1 && strstr(last_warning, "part 3 of 2"),
	      "a part index past the part count is warned about");

	check(same_as(trec_archive_store_get(s, 1, "one"), p, n), "a one-part archive");
	check(same_as(trec_archive_store_get(s, 2, "three"), p, n),
	      "three parts arriving out of order are joined");
	warnings = 0;
	check(!trec_archive_store_get(s, 3, "gappy") && warnings == 1 &&
		      strstr(last_warning, "gappy: embedded symbols incomplete (2 of 3 parts)"),
	      "an incomplete set of parts is refused with one warning");
	check(!trec_archive_store_get(s, 3, "gappy") && warnings == 1,
	      "and not warned about again");
	warnings = 0;
	check(!trec_archive_store_get(s, 4, "damaged") && warnings == 1 &&
		      strstr(last_warning, "damaged: embedded symbols unusable: symbol archive:"),
	      "a damaged archive is refused with the decoder's message");
	check(!trec_archive_store_get(s, 4, "damaged") && warnings == 1,
	      "and not warned about again");
	check(!trec_archive_store_get(s, 5, "other") && !trec_archive_store_get(s, 99, "none"),
	      "unknown kinds and absent files have no archive");
	check(trec_archive_store_count(s) == 4 && trec_archive_store_file_id(s, 1) == 2,
	      "file ids are listed in first-seen order, once each");
	warnings = 0;
	check(trec_archive_store_archives(s, 1) == 2 && same_as(trec_archive_store_get(s, 1, "one"), p, n) &&
		      !trec_archive_store_get_nth(s, 1, "one again", 1) && warnings == 1,
	      "a second archive of a file is kept apart (and checked on its own)");
	check(trec_archive_store_archives(s, 2) == 1, "an identical archive of a file is kept once");
	trec_archive_store_free(s);
}

/* What a hostile file can make the store hold: at most 64 archives per
 * file id (each a different one-part blob), and nothing for empty parts. */
static void bound_tests(void)
{
	struct trec_archive_store *s = trec_archive_store_new(on_warn, NULL);
	uint8_t data[8] = { 0 };

	warnings = 0;
	for (uint32_t i = 0; i < 100; i++) {
		memcpy(data, &i, sizeof(i)); /* each archive different: none dropped as a repeat */
		struct trec_blob b = { .file_id = 9, .subtype = TREC_SYMTAB_SUBTYPE(0, 1),
				       .len = sizeof(data), .data = data };
		trec_archive_store_add(s, &b);
	}
	check(trec_archive_store_archives(s, 9) == 64 && warnings == 1 &&
		      strstr(last_warning, "more than 64 archives"),
	      "a file id keeps at most 64 archives, with one warning");
	for (uint32_t i = 0; i < 1000; i++) {
		struct trec_blob b = { .file_id = 1000 + i, .subtype = TREC_SYMTAB_SUBTYPE(0, 4095),
				       .len = 0, .data = data };
		trec_archive_store_add(s, &b);
	}
	check(trec_archive_store_count(s) == 1, "empty parts begin no archive");
	trec_archive_store_free(s);
}

/* ---- extraction ------------------------------------------------------------- */

static int run(const char *cmd, char *out, size_t outlen)
{
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(out, 1, outlen - 1, p) : 0;
	out[n] = 0;
	return p && pclose(p) == 0 ? 0 : -1;
}

/* Every function symbol the original's symtab defines (name at address) is
 * in the extracted file, or is an alias of one that is. */
static void extract_tests(const uint8_t *p, size_t n, const char *orig)
{
	struct trec_archive *a = NULL;
	char dir[] = "/tmp/trec-arc-extract.XXXXXX", path[4096], err[256], cmd[20000];
	static char ours[1 << 16], theirs[1 << 16];
	if (!mkdtemp(dir) || trec_archive_parse(p, n, &a, NULL, 0)) {
		check(0, "setup for extraction");
		return;
	}
	int rc = trec_archive_debug_path(a, 7, dir, path, sizeof(path));
	const struct trec_arc_tables *t = trec_archive_tables(a);
	char expect[64];
	snprintf(expect, sizeof(expect), "/.build-id/%02x/%02x", t->build_id[0], t->build_id[1]);
	check(!rc && strstr(path, expect) && strstr(path, ".debug"),
	      "debug path is DIR/.build-id/xx/yyyy.debug");
	rc = trec_archive_write_elf(a, path, err, sizeof(err));
	check(!rc, "writes the ELF debug file");

	/* The original's function symbols (readelf: nm cannot tell weak
	 * functions from weak data) and objdump's PLT stubs (its label of the
	 * lazy-binding header is ours .plt), the extracted file's as nm sees
	 * them. */
	snprintf(cmd, sizeof(cmd),
		 "(readelf -sW '%s' | awk '$4 == \"FUNC\" && $7 != \"UND\" "
		 "{sub(/@.*/, \"\", $8); print $2, $8}'; "
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' | awk '/>:$/ "
		 "{n = $2; gsub(/[<>:]/, \"\", n); sub(/@plt-0x10$/, \"\", n); "
		 "if (n !~ /@plt$/) n = \".plt\"; print $1, n}') | sort -u > %s/orig.txt; "
		 "nm '%s' | awk '{print $1, $3}' | sort > %s/ours.txt", orig, orig, dir, path, dir);
	int ok = !run(cmd, ours, sizeof(ours));
	snprintf(cmd, sizeof(cmd), "cd %s && cut -d' ' -f1 orig.txt | sort -u > orig.addrs && "
		 "cut -d' ' -f1 ours.txt > ours.addrs && cmp -s orig.addrs ours.addrs && "
		 "test -s ours.addrs", dir);
	ok = ok && !run(cmd, theirs, sizeof(theirs));
	check(ok, "nm lists the same function addresses as the original");
	snprintf(cmd, sizeof(cmd), "comm -23 %s/ours.txt %s/orig.txt", dir, dir);
	ok = !run(cmd, ours, sizeof(ours)) && ours[0] == 0;
	check(ok, "every extracted name is the original's name at that address");

	const struct trec_arc_sym *s = &t->syms[t->num_syms / 2];
	snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s' %#llx | head -1", path,
		 (unsigned long long)(s->addr + s->size / 2));
	char want[5000];
	snprintf(want, sizeof(want), "%s\n", t->strings[s->name]);
	check(!run(cmd, ours, sizeof(ours)) && !strcmp(ours, want),
	      "addr2line -f names an address from the extracted symbols");
	snprintf(cmd, sizeof(cmd), "gdb -nx -batch -ex 'info symbol %#llx' '%s' 2>&1", 
		 (unsigned long long)(s->addr + 1), path);
	snprintf(want, sizeof(want), "%s + 1 in section .text", t->strings[s->name]);
	check(!run(cmd, ours, sizeof(ours)) && strstr(ours, want),
	      "gdb info symbol names an address from the extracted symbols");
	/* Lines: addr2line prints the line row, gdb the same line. */
	struct trec_arc_result lr;
	uint64_t la = t->lines[t->num_lines / 2].addr;
	trec_archive_lookup(a, la, &lr);
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %#llx", path, (unsigned long long)la);
	snprintf(want, sizeof(want), "%s:%u\n", lr.frames[0].file, lr.frames[0].line);
	check(lr.frames[0].file && !run(cmd, ours, sizeof(ours)) && !strcmp(ours, want),
	      "addr2line gives the file:line of an address from the extracted .debug_line");
	snprintf(cmd, sizeof(cmd), "gdb -nx -batch -ex 'info line *%#llx' '%s' 2>&1",
		 (unsigned long long)la, path);
	snprintf(want, sizeof(want), "Line %u of \"%s\"", lr.frames[0].line, lr.frames[0].file);
	check(!run(cmd, ours, sizeof(ours)) && strstr(ours, want),
	      "gdb info line agrees");
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | grep -q 'Build ID'", path);
	check(!run(cmd, ours, sizeof(ours)), "the extracted file carries the build-id note");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd, ours, sizeof(ours));
	trec_archive_free(a);
}

int main(void)
{
	size_t n = 0;
	uint8_t *p;
	if (archive_test_setup() || !(p = workload_archive("busy", TREC_ARCHIVE_FULL, &n))) {
		printf("FAIL: archive store: build the busy workload's archive\n");
		return 1;
	}
	bound_tests();
	store_tests(p, n);
	extract_tests(p, n, workload("busy"));
	free(p);
	return failures ? 1 : 0;
}
