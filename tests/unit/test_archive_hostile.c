// SPDX-License-Identifier: MIT
/*
 * The archive decoder against hostile bytes: every truncation, every bit
 * flip of a real archive, random damage to libc's archive, and crafted
 * violations of each limit. Parsing must fail with one message or succeed
 * with tables that lookups can walk; never crash (this runs under ASan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/archive/archive.h"
#include "archive_testlib.h"
#include "encode.h"
#include "format/archive/archive_reader.h"

static int failures;

static void check(int ok, const char *name)
{
	printf("%s: archive hostile: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

/* Walks every table and looks up addresses across the covered range, so a
 * parse that "succeeded" on damaged bytes still proves its tables are sane. */
static int exercise(const struct trec_archive *a)
{
	const struct trec_arc_tables *t = trec_archive_tables(a);
	uint64_t lo = t->num_syms ? t->syms[0].addr : 0;
	uint64_t hi = t->num_syms ? t->syms[t->num_syms - 1].addr + 64 : 4096;
	size_t sum = 0;
	for (size_t i = 0; i < t->num_strings; i++)
		sum += strlen(t->strings[i]);
	uint64_t step = (hi - lo) / 257 + 1;
	for (uint64_t v = lo; v < hi && v >= lo; v += step) {
		struct trec_arc_result r;
		trec_archive_lookup(a, v, &r);
		if (r.num_frames < 1 || r.num_frames > TREC_ARC_MAX_DEPTH + 1)
			return 0;
		for (unsigned k = 0; k < r.num_frames; k++)
			sum += (r.frames[k].function ? strlen(r.frames[k].function) : 0) +
			       (r.frames[k].file ? strlen(r.frames[k].file) : 0);
	}
	return sum != (size_t)-1;
}

/* 1: parsed and exercised; 0: refused properly; -1: refused badly. */
static int try_parse(const uint8_t *p, size_t n)
{
	struct trec_archive *a = NULL;
	char err[256];
	/* Exact-size heap copy so ASan sees any read past the end. */
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, p, n);
	int rc = trec_archive_parse(copy, n, &a, err, sizeof(err));
	int res;
	if (!rc)
		res = a && exercise(a) ? 1 : -1;
	else
		res = !a && (rc == -EBADMSG || rc == -EPROTONOSUPPORT) &&
			      !strncmp(err, "symbol archive: ", 16) ? 0 : -1;
	trec_archive_free(a);
	free(copy);
	return res;
}

/* Section boundaries of a well-formed archive: where a truncated archive may
 * still be complete (STRINGS and SYMBOLS come first). */
static size_t boundaries(const uint8_t *p, size_t n, size_t *out, size_t max)
{
	struct trec_cur c = { .p = p + 12 + p[11], .end = p + n };
	size_t k = 0, sections = 0;
	trec_cur_varint(&c); /* sources */
	trec_cur_varint(&c); /* load_vaddr */
	while (!c.bad && trec_cur_left(&c) && k < max) {
		trec_cur_u8(&c);
		uint64_t len = trec_cur_varint(&c);
		c.p += len;
		if (++sections >= 2)
			out[k++] = (size_t)(c.p - p);
	}
	return k;
}

static void truncations(const uint8_t *p, size_t n)
{
	size_t ok_at[16], nb = boundaries(p, n, ok_at, 16);
	int good = nb >= 2;
	for (size_t len = 0; len < n && good; len++) {
		int r = try_parse(p, len), allowed = 0;
		for (size_t k = 0; k < nb; k++)
			allowed |= ok_at[k] == len;
		good = allowed ? r == 1 : r == 0;
		if (!good)
			fprintf(stderr, "truncation to %zu bytes: result %d\n", len, r);
	}
	check(good && try_parse(p, n) == 1,
	      "every truncation is refused with a message, except at section ends");
}

static void bit_flips(const uint8_t *p, size_t n)
{
	uint8_t *m = malloc(n);
	size_t refused = 0, accepted = 0, bad = 0;
	for (size_t i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(m, p, n);
			m[i] ^= (uint8_t)(1u << bit);
			int r = try_parse(m, n);
			refused += r == 0;
			accepted += r == 1;
			bad += r < 0;
		}
	free(m);
	char name[128];
	snprintf(name, sizeof(name), "all %zu single-bit flips handled (%zu refused, %zu accepted)",
		 n * 8, refused, accepted);
	check(!bad && refused > 0, name);
}

static void random_damage(const uint8_t *p, size_t n, const char *what)
{
	uint8_t *m = malloc(n);
	unsigned seed = 12345;
	size_t bad = 0;
	for (int iter = 0; iter < 200; iter++) {
		memcpy(m, p, n);
		int hits = 1 + rand_r(&seed) % 8;
		for (int h = 0; h < hits; h++)
			m[(size_t)rand_r(&seed) % n] = (uint8_t)rand_r(&seed);
		size_t len = iter % 4 ? n : (size_t)rand_r(&seed) % n;
		bad += try_parse(m, len) < 0;
	}
	free(m);
	char name[128];
	snprintf(name, sizeof(name), "200 random damages of the %s archive handled", what);
	check(!bad, name);
}

/* ---- crafted archives ------------------------------------------------------ */

static void header(struct trec_buf *b, uint8_t major)
{
	trec_buf_put(b, TREC_ARC_MAGIC, 4);
	uint8_t h[8] = { major, 0, TREC_ARCHIVE_FULL, 2, 62, 0, 3, 0 };
	trec_buf_put(b, h, sizeof(h));
	trec_buf_varint(b, 1); /* sources */
	trec_buf_varint(b, 0); /* load_vaddr */
}

static void section(struct trec_buf *b, uint8_t tag, const struct trec_buf *body)
{
	trec_buf_u8(b, tag);
	trec_buf_varint(b, body->len);
	trec_buf_put(b, body->data, body->len);
}

/* STRINGS with "f" and "g", plus a SYMBOLS body as given. */
static void strings_fg(struct trec_buf *b)
{
	struct trec_buf s = { 0 };
	trec_buf_varint(&s, 2);
	trec_buf_varint(&s, 2);
	trec_buf_varint(&s, 0), trec_buf_varint(&s, 1), trec_buf_u8(&s, 'f');
	trec_buf_varint(&s, 0), trec_buf_varint(&s, 1), trec_buf_u8(&s, 'g');
	section(b, TREC_ARC_SEC_STRINGS, &s);
	trec_buf_free(&s);
}

static void one_symbol(struct trec_buf *s, uint64_t gap_zz, uint64_t size, uint64_t name_bind)
{
	trec_buf_varint(s, 1);
	trec_buf_varint(s, gap_zz);
	trec_buf_varint(s, size);
	trec_buf_varint(s, name_bind);
}

static int parse_rc(const struct trec_buf *b, char *err, size_t errlen)
{
	struct trec_archive *a = NULL;
	uint8_t *copy = malloc(b->len + 1);
	memcpy(copy, b->data, b->len);
	int rc = trec_archive_parse(copy, b->len, &a, err, errlen);
	if (!rc && !exercise(a))
		rc = -1000;
	trec_archive_free(a);
	free(copy);
	return rc;
}

enum craft {
	C_VALID, C_UNKNOWN_SECTION, C_BAD_MAGIC, C_VERSION2, C_HUGE_COUNT, C_LONG_VARINT,
	C_DUP_SECTION, C_CONTROL_BYTE, C_NAME_RANGE, C_ADDR_WRAP, C_DEPTHS, C_NO_SYMBOLS,
	C_TRAILING, C_PREFIX, C_BIG_STRINGS, C_SECTION_LEN, C_EMPTY_INLINE, C_LINE_FILE,
	C_LAYOUT, C_LAYOUT_SECTIONS, C_LAYOUT_WRAP, C_INLINE_LINE_STEP, C_COUNT
};

static void craft(struct trec_buf *b, enum craft k)
{
	struct trec_buf s = { 0 };
	header(b, k == C_VERSION2 ? 2 : 1);
	if (k == C_BAD_MAGIC)
		b->data[0] = 'X';
	if (k == C_CONTROL_BYTE) {
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 2);
		trec_buf_varint(&s, 0), trec_buf_varint(&s, 2), trec_buf_put(&s, "a\n", 2);
		section(b, TREC_ARC_SEC_STRINGS, &s);
	} else if (k == C_PREFIX) {
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 5);
		trec_buf_varint(&s, 4), trec_buf_varint(&s, 1), trec_buf_u8(&s, 'x');
		section(b, TREC_ARC_SEC_STRINGS, &s);
	} else if (k == C_BIG_STRINGS) {
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 1ull << 40);
		trec_buf_varint(&s, 0), trec_buf_varint(&s, 1), trec_buf_u8(&s, 'x');
		section(b, TREC_ARC_SEC_STRINGS, &s);
	} else {
		strings_fg(b);
	}
	trec_buf_free(&s);
	if (k == C_NO_SYMBOLS)
		return;
	switch (k) {
	case C_HUGE_COUNT:
		trec_buf_varint(&s, 1ull << 40);
		break;
	case C_LONG_VARINT:
		for (int i = 0; i < 11; i++)
			trec_buf_u8(&s, 0xff);
		break;
	case C_NAME_RANGE:
		one_symbol(&s, 0x2000, 16, 2u << 2);
		break;
	case C_ADDR_WRAP: /* a symbol at 2^63-1 of size 2^63+10 */
		one_symbol(&s, trec_zigzag_enc(INT64_MAX), (1ull << 63) + 10, 1);
		break;
	case C_TRAILING:
		one_symbol(&s, 0x2000, 16, 1);
		trec_buf_u8(&s, 0);
		break;
	default:
		one_symbol(&s, 0x2000, 16, 1);
		break;
	}
	section(b, TREC_ARC_SEC_SYMBOLS, &s);
	trec_buf_free(&s);
	if (k == C_DUP_SECTION)
		strings_fg(b);
	if (k == C_UNKNOWN_SECTION) {
		trec_buf_varint(&s, 7);
		section(b, 200, &s);
	}
	if (k == C_DEPTHS) { /* 65 depths of 0 ranges each */
		trec_buf_varint(&s, 65);
		for (int d = 0; d < 65; d++)
			trec_buf_varint(&s, 0);
		section(b, TREC_ARC_SEC_INLINES, &s);
	}
	if (k == C_EMPTY_INLINE) { /* 1 depth, 1 range: gap, len 0, name, file, line */
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 1);
		trec_buf_varint(&s, 0x2000), trec_buf_varint(&s, 0);
		trec_buf_varint(&s, 0), trec_buf_varint(&s, 0), trec_buf_varint(&s, 0);
		section(b, TREC_ARC_SEC_INLINES, &s);
	}
	if (k == C_INLINE_LINE_STEP) {
		/* Call line 5, then a step of INT64_MAX: a decoder that adds before
		 * checking overflows int64_t (UBSan halts; found by the fuzzer). */
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 2);
		trec_buf_varint(&s, 0x2000), trec_buf_varint(&s, 4);
		trec_buf_varint(&s, 0), trec_buf_varint(&s, 1), trec_buf_varint(&s, trec_zigzag_enc(5));
		trec_buf_varint(&s, 0), trec_buf_varint(&s, 4);
		trec_buf_varint(&s, 1), trec_buf_varint(&s, 1);
		trec_buf_varint(&s, trec_zigzag_enc(INT64_MAX));
		section(b, TREC_ARC_SEC_INLINES, &s);
	}
	if (k == C_LAYOUT || k == C_LAYOUT_SECTIONS || k == C_LAYOUT_WRAP) {
		size_t nsec = k == C_LAYOUT_SECTIONS ? TREC_ARC_MAX_SECTIONS + 1 : 1;
		trec_buf_varint(&s, 0x2000); /* entry */
		trec_buf_varint(&s, nsec);
		for (size_t i = 0; i < nsec; i++) { /* "f", PROGBITS, AX, 0x2000, 16 */
			trec_buf_varint(&s, 0), trec_buf_varint(&s, 1), trec_buf_varint(&s, 6);
			trec_buf_varint(&s, 0x2000), trec_buf_varint(&s, 16);
		}
		trec_buf_varint(&s, 1); /* one PT_LOAD */
		trec_buf_varint(&s, 5), trec_buf_varint(&s, k == C_LAYOUT_WRAP ? UINT64_MAX : 0);
		trec_buf_varint(&s, 0x3000), trec_buf_varint(&s, 0x1000);
		section(b, TREC_ARC_SEC_ELF_LAYOUT, &s);
	}
	if (k == C_LINE_FILE) {
		trec_buf_varint(&s, 1);
		trec_buf_varint(&s, 0x2000), trec_buf_varint(&s, 1), trec_buf_varint(&s, 3);
		section(b, TREC_ARC_SEC_LINES, &s);
	}
	if (k == C_SECTION_LEN) {
		trec_buf_u8(b, TREC_ARC_SEC_LINES);
		trec_buf_varint(b, 1000);
	}
	trec_buf_free(&s);
}

static void crafted(void)
{
	static const struct {
		enum craft k;
		int rc;
		const char *name, *msg;
	} cases[] = {
		{ C_VALID, 0, "a minimal valid archive parses", NULL },
		{ C_UNKNOWN_SECTION, 0, "an unknown section is skipped", NULL },
		{ C_BAD_MAGIC, -EBADMSG, "bad magic is refused", "bad magic" },
		{ C_VERSION2, -EPROTONOSUPPORT, "major version 2 is refused", "not supported" },
		{ C_HUGE_COUNT, -EBADMSG, "a count larger than the input is refused", "cannot fit" },
		{ C_LONG_VARINT, -EBADMSG, "an 11-byte varint is refused", "varint" },
		{ C_DUP_SECTION, -EBADMSG, "a repeated section is refused", "twice" },
		{ C_CONTROL_BYTE, -EBADMSG, "a control byte in a string is refused", "control" },
		{ C_NAME_RANGE, -EBADMSG, "a name index past the strings is refused", "name" },
		{ C_ADDR_WRAP, -EBADMSG, "a symbol wrapping 2^64 is refused", "overflows" },
		{ C_DEPTHS, -EBADMSG, "65 inline depths are refused", "depths" },
		{ C_NO_SYMBOLS, -EBADMSG, "a missing SYMBOLS section is refused", "SYMBOLS" },
		{ C_TRAILING, -EBADMSG, "trailing bytes in a section are refused", "trailing" },
		{ C_PREFIX, -EBADMSG, "a front-coding prefix past the previous string is refused",
		  "lengths" },
		{ C_BIG_STRINGS, -EBADMSG, "an implausible string table size is refused",
		  "implausible" },
		{ C_SECTION_LEN, -EBADMSG, "a section longer than the archive is refused",
		  "overruns" },
		{ C_EMPTY_INLINE, -EBADMSG, "an empty inline range is refused", "malformed" },
		{ C_LINE_FILE, -EBADMSG, "a line row's file past the strings is refused", "file" },
		{ C_LAYOUT, 0, "an ELF layout section parses", NULL },
		{ C_LAYOUT_SECTIONS, -EBADMSG, "1025 ELF sections are refused", "ELF sections (max" },
		{ C_LAYOUT_WRAP, -EBADMSG, "a segment wrapping 2^64 is refused", "overflows" },
		{ C_INLINE_LINE_STEP, -EBADMSG, "an inline call-line step of INT64_MAX is refused",
		  "inline range 1 of depth 1 is malformed" },
	};
	_Static_assert(sizeof(cases) / sizeof(cases[0]) == C_COUNT, "a case per craft");
	for (size_t i = 0; i < C_COUNT; i++) {
		struct trec_buf b = { 0 };
		char err[256] = "";
		craft(&b, cases[i].k);
		int rc = parse_rc(&b, err, sizeof(err));
		int ok = rc == cases[i].rc && (!cases[i].msg || strstr(err, cases[i].msg));
		if (!ok)
			fprintf(stderr, "%s: rc %d, message '%s'\n", cases[i].name, rc, err);
		check(ok, cases[i].name);
		trec_buf_free(&b);
	}
	char err[64];
	check(trec_archive_parse((const uint8_t *)"", 0, &(struct trec_archive *){ NULL }, err,
				 sizeof(err)) == -EBADMSG,
	      "empty input is refused");
}

int main(void)
{
	size_t n = 0;
	uint8_t *p = archive_test_setup() ? NULL : workload_archive("inlines", TREC_ARCHIVE_FULL, &n);
	check(p != NULL, "built the inlines workload's archive");
	if (p) {
		truncations(p, n);
		bit_flips(p, n);
		random_damage(p, n, "inlines");
	}
	free(p);
	p = NULL;
	trec_archive_build("/lib/x86_64-linux-gnu/libc.so.6", NULL, 0, TREC_ARCHIVE_FULL, &p, &n,
			   NULL);
	if (p)
		random_damage(p, n, "libc");
	free(p);
	crafted();
	return failures ? 1 : 0;
}
