// SPDX-License-Identifier: MIT
/*
 * Ruby iseq descriptions: the INTERP_CODE payload (format/trec_rbcode.c)
 * round trip, every truncation and bit flip handled, line lookup; MRI's
 * succinct position index decoded (record/interp/ruby/ruby_iseq.c) for
 * tables built the way MRI builds them; an iseq read from a fake process
 * memory laid out as MRI 3.1 lays it; treport's lookup and labels
 * (report/interp/ruby/ruby_frames.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/ruby/ruby_detect.h"
#include "record/interp/ruby/ruby_iseq.h"
#include "report/interp/ruby/ruby_frames.h"
#include "trec_rbcode.h"
#include "python_check.h"

static const struct trec_rbcode_line rows[] = { { 0, 10 }, { 4, 11 }, { 9, 13 } };

static struct trec_rbcode sample(uint32_t pid, uint64_t addr, uint32_t id)
{
	struct trec_rbcode c = {
		.pid = pid, .iseq_addr = addr, .object_id = id, .first_lineno = 10,
		.rb_major = 3, .rb_minor = 1, .label = "block in run", .path = "/srv/app/w.rb",
		.lines = rows, .num_lines = 3,
	};

	c.label_len = (uint32_t)strlen(c.label);
	c.path_len = (uint32_t)strlen(c.path);
	return c;
}

static void payload(void)
{
	struct trec_rbcode c = sample(42, 0x7f0000001230, 0xabcdef), d, bad = c;
	struct trec_rbcode_line unsorted[] = { { 4, 1 }, { 4, 2 } };
	uint8_t *buf, *cut;
	size_t len;
	int crashes = 0;

	CHECK(trec_rbcode_encode(&c, &buf, &len) == 0, "rbcode: encodes");
	CHECK(trec_rbcode_decode(buf, len, &d) == 0 && d.pid == 42 && d.iseq_addr == c.iseq_addr &&
		      d.object_id == 0xabcdef && !strcmp(d.label, "block in run") &&
		      !strcmp(d.path, "/srv/app/w.rb") && d.num_lines == 3 &&
		      trec_rbcode_line_at(&d, 2).line == 13,
	      "rbcode: decodes what it encoded");
	/* pc points past the running instruction: pos p is the row of p-1. */
	CHECK(trec_rbcode_line_of(&d, 1) == 10 && trec_rbcode_line_of(&d, 4) == 10 &&
		      trec_rbcode_line_of(&d, 5) == 11 && trec_rbcode_line_of(&d, 10) == 13 &&
		      trec_rbcode_line_of(&d, 0) == 10 && trec_rbcode_line_of(&d, UINT32_MAX) == 10,
	      "rbcode: line of a position is the row before the pc");
	for (size_t n = 0; n < len; n++) {
		cut = malloc(n ? n : 1);
		memcpy(cut, buf, n);
		crashes += trec_rbcode_decode(cut, n, &d) != -EBADMSG;
		free(cut);
	}
	CHECK(crashes == 0, "rbcode: every truncation is refused");
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++) {
			buf[i] ^= (uint8_t)(1 << b);
			if (trec_rbcode_decode(buf, len, &d) == 0)
				(void)trec_rbcode_line_of(&d, 7); /* under ASan: in bounds */
			buf[i] ^= (uint8_t)(1 << b);
		}
	printf("PASS: rbcode: every bit flip decodes or is refused, in bounds\n");
	free(buf);
	bad.lines = unsorted;
	bad.num_lines = 2;
	CHECK(trec_rbcode_encode(&bad, &buf, &len) == -EINVAL, "rbcode: rows must increase");
}

/* MRI's table for positions data[0..size) over max_pos words, built as
 * iseq.c's succ_index_table_create does (ranks, then 512-bit blocks). */
static size_t build_succ(uint64_t *t, uint32_t max_pos, const uint32_t *data, uint32_t size)
{
	size_t imm = (max_pos < 54 ? max_pos + 8 : 54) / 9, words = trec_rb_succ_words(max_pos);
	uint32_t r = 0;

	memset(t, 0, words * 8);
	for (size_t j = 0; j < imm; j++)
		for (uint32_t i = 0; i < 9; i++) {
			if (r < size && data[r] == j * 9 + i)
				r++;
			t[j] |= (uint64_t)r << (7 * i);
		}
	for (size_t w = imm; w < words; w += 10) {
		uint32_t k = (uint32_t)((w - imm) / 10);

		t[w] = r; /* rank; small ranks are not read */
		for (uint32_t j = 0; j < 8; j++)
			for (uint32_t i = 0; i < 64; i++)
				if (r < size && data[r] == k * 512 + j * 64 + i + 54) {
					t[w + 2 + j] |= 1ULL << i;
					r++;
				}
	}
	return words;
}

static void succ(void)
{
	static uint64_t t[4096];
	static uint32_t data[2000], got[2000];
	uint32_t small[] = { 0, 2, 8, 11 }, n = 0;
	size_t words;

	words = build_succ(t, 20, small, 4);
	CHECK(trec_rb_succ_positions(t, words, 20, 4, got) == 0 && !memcmp(got, small, sizeof(small)),
	      "succ: a small index (immediate part only) gives its positions back");
	/* Positions every 3 words up to 3000: both parts, several blocks. */
	for (uint32_t p = 0; p < 3000; p += 3)
		data[n++] = p;
	words = build_succ(t, 3001, data, n);
	CHECK(trec_rb_succ_positions(t, words, 3001, n, got) == 0 &&
		      !memcmp(got, data, n * sizeof(*got)),
	      "succ: %u positions over 3001 words (%zu words of index) come back", n, words);
	CHECK(trec_rb_succ_positions(t, words, 3001, n - 1, got) == -EINVAL &&
		      trec_rb_succ_positions(t, words, 3001, n + 1, got) == -EINVAL &&
		      trec_rb_succ_positions(t, words - 1, 3001, n, got) == -EINVAL,
	      "succ: a count or size that does not match is refused");
	t[0] |= 0x7f; /* rank 127 at position 0: not a step of one */
	CHECK(trec_rb_succ_positions(t, words, 3001, n, got) == -EINVAL,
	      "succ: a rank that jumps is refused");
}

/* A fake process: MRI 3.1 objects at fixed addresses in one buffer. */
#define MEM_BASE 0x10000ULL
static uint8_t mem[16384];

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < MEM_BASE || addr - MEM_BASE > sizeof(mem) || len > sizeof(mem) - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, mem + (addr - MEM_BASE), len);
	return 0;
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - MEM_BASE), &v, 8);
}

static void put32(uint64_t addr, uint32_t v)
{
	memcpy(mem + (addr - MEM_BASE), &v, 4);
}

enum {
	ISEQ = MEM_BASE + 0x100, BODY = MEM_BASE + 0x200, LABEL = MEM_BASE + 0x400,
	PATHARY = MEM_BASE + 0x500, PATH = MEM_BASE + 0x600, PATHBYTES = MEM_BASE + 0x700,
	ENTRIES = MEM_BASE + 0x800, SUCC = MEM_BASE + 0x900,
};

static void read_iseq(void)
{
	struct trec_rb_offsets o = { .major = 3, .minor = 1 };
	struct trec_rbcode_owned code;
	const uint32_t pos[] = { 0, 5, 17 };
	const int32_t lines[] = { 27, 28, 30 };
	const char *path = "/srv/app/worker.rb";
	uint64_t succ[8];
	size_t words;
	int err;

	CHECK(trec_rb_layout_for(&o) == 0, "iseq: 3.1 has a layout table");
	o.minor = 2;
	CHECK(trec_rb_layout_for(&o) == -ENOTSUP, "iseq: 3.2 has none");
	o.minor = 1;
	trec_rb_layout_for(&o);
	put64(ISEQ + 16, BODY);
	put32(BODY + 4, 40);                  /* iseq_size */
	put64(BODY + 8, MEM_BASE + 0x3000);   /* iseq_encoded */
	put64(BODY + 64, PATHARY);            /* pathobj: [path, realpath] */
	put64(BODY + 80, LABEL);
	put64(BODY + 88, 27 << 1 | 1);        /* first_lineno, a Fixnum */
	put64(BODY + 120, ENTRIES);
	put32(BODY + 136, 3);
	put64(BODY + 144, SUCC);
	put64(LABEL, 0x05 | 4 << 14);         /* embedded T_STRING of 4 */
	memcpy(mem + (LABEL + 16 - MEM_BASE), "leaf", 4);
	put64(PATHARY, 0x07 | 1 << 13 | 2 << 15); /* embedded T_ARRAY of 2 */
	put64(PATHARY + 16, PATH);
	put64(PATHARY + 24, PATH);
	put64(PATH, 0x05 | 1 << 13);          /* heap T_STRING */
	put64(PATH + 16, strlen(path));
	put64(PATH + 24, PATHBYTES);
	memcpy(mem + (PATHBYTES - MEM_BASE), path, strlen(path));
	for (int i = 0; i < 3; i++)
		put32(ENTRIES + 12 * i, (uint32_t)lines[i]);
	words = build_succ(succ, 40, pos, 3);
	memcpy(mem + (SUCC - MEM_BASE), succ, words * 8);

	err = trec_rb_read_iseq(read_mem, NULL, 7, &o, ISEQ, 0, &code);
	CHECK(err == 0 && !strcmp(code.c.label, "leaf") && !strcmp(code.c.path, path) &&
		      code.c.first_lineno == 27 && code.c.num_lines == 3 &&
		      code.lines[1].pos == 5 && code.lines[2].line == 30,
	      "iseq: label, path from [path, realpath], first line and line table read (%d)", err);
	if (!err) {
		struct trec_rbcode_owned again;

		CHECK(trec_rb_read_iseq(read_mem, NULL, 7, &o, ISEQ, code.c.object_id ^ 1, &again) ==
			      -ESTALE,
		      "iseq: another object id is stale");
		trec_rbcode_owned_free(&code);
	}
	put64(LABEL, 0x07); /* not a String */
	CHECK(trec_rb_read_iseq(read_mem, NULL, 7, &o, ISEQ, 0, &code) == -EINVAL,
	      "iseq: a label that is not a String is refused");
	put64(LABEL, 0x05 | 4 << 14);
	put32(BODY + 136, 4); /* more entries than the index holds */
	CHECK(trec_rb_read_iseq(read_mem, NULL, 7, &o, ISEQ, 0, &code) == -EINVAL,
	      "iseq: an index that disagrees with insns_info.size is refused");
	put32(BODY + 136, 3);
	put64(BODY + 120, 0xdead0000);
	CHECK(trec_rb_read_iseq(read_mem, NULL, 7, &o, ISEQ, 0, &code) == -EFAULT,
	      "iseq: unreadable entries are -EFAULT");
}

static void report(void)
{
	const struct rp_interp_ops *ops = &rp_ruby_interp;
	struct trec_rbcode c = sample(42, 0x7f0000001230, 0xabcdef);
	struct trec_blob b = { c.iseq_addr, TREC_RBCODE_SUBTYPE, 0, NULL };
	struct trec_rec_frame f = { c.iseq_addr, (uint64_t)5 << 32 | 0xabcdef, 6, 4 };
	struct rp_interp_sym sym;
	void *store = ops->new_store();
	uint8_t *buf;
	size_t len;
	char out[128];

	trec_rbcode_encode(&c, &buf, &len);
	b.len = (uint32_t)len;
	b.data = buf;
	CHECK(ops->add(store, &b) == 0, "report: a description is stored");
	b.file_id++;
	CHECK(ops->add(store, &b) == -EBADMSG, "report: a file_id that is not its iseq is malformed");
	free(buf);
	ops->format(store, 42, &f, out, sizeof(out));
	CHECK(!strcmp(out, "block in run (w.rb:11)"), "report: label (file:line): %s", out);
	CHECK(ops->lookup(store, 43, &f, &sym) == 0 && sym.line == 11,
	      "report: a forked child finds its parent's iseq");
	f.addr ^= 1;
	ops->format(store, 42, &f, out, sizeof(out));
	CHECK(!strcmp(out, "[ruby 0x7f0000001230]"), "report: another object id is unknown: %s", out);
	ops->free_store(store);
}

int main(void)
{
	payload();
	succ();
	read_iseq();
	report();
	return failures ? 1 : 0;
}
