// SPDX-License-Identifier: MIT
/*
 * The jitdump parser (record/jit/jitdump.c) on files built here record by
 * record, in both byte orders: loads with line rows, moves, close, skipped
 * records; hostile ones: wrong magic, unknown flags, short and oversized
 * records, names without NUL, impossible row counts, cut files. Also the
 * JITSYMS emission of a table (record/jit/jit_table.c) through the writer
 * and reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/jit/jitdump.h"
#include "unit_check.h"

#include "jitdump_builder.h"

static int parse_buf(const struct jb *b, const struct trec_jit_filter *f, struct trec_jit_table *t)
{
	trec_jit_table_init(t, NULL);
	return trec_jitdump_parse_mem(b->p, b->len, f, t);
}

static bool entry_is(const struct trec_jit_table *t, uint32_t i, uint64_t start, uint64_t size,
		     uint64_t load, uint64_t end, uint64_t index, const char *name)
{
	const struct trec_jit_entry *e = &t->entries[i];

	return i < t->n && e->start == start && e->size == size && e->load_ns == load &&
	       e->end_ns == end && e->code_index == index && !strcmp(e->name, name);
}

static bool row_is(const struct trec_jit_table *t, uint32_t i, uint64_t addr, uint32_t line,
		   const char *file)
{
	return i < t->nlines && t->lines[i].addr == addr && t->lines[i].line == line &&
	       !strcmp(t->files[t->lines[i].file], file);
}

static void check_good(const struct trec_jit_table *t, int err, const char *order)
{
	char name[128];

	snprintf(name, sizeof(name), "jitdump %s: parses without refusals", order);
	CHECK(name, err == 0 && t->n == 3 && t->bad == 0 && t->flags == 0);
	snprintf(name, sizeof(name), "jitdump %s: loads, ended by the move and the close", order);
	CHECK(name, entry_is(t, 0, 0x7f0000001000, 0x40, 100, 400, 1, "JS:*fib /app/fib.js:1") &&
		    entry_is(t, 1, 0x7f0000002000, 0x20, 200, 300, 2, "Interpreter") &&
		    entry_is(t, 2, 0x7f0000003000, 0x20, 300, 400, 2, "Interpreter"));
	snprintf(name, sizeof(name), "jitdump %s: rows of the next load, sorted, \\xff = same file",
		 order);
	CHECK(name, t->entries[0].first_line == 0 && t->entries[0].num_lines == 4 && t->nfiles == 2 &&
		    row_is(t, 0, 0x7f0000001000, 10, "/app/fib.js") &&
		    row_is(t, 1, 0x7f0000001010, 11, "/app/fib.js") &&
		    row_is(t, 2, 0x7f0000001020, 12, "/app/fib.js") &&
		    row_is(t, 3, 0x7f0000001030, 0, "/app/other.js") &&
		    t->entries[1].num_lines == 0 && t->entries[2].num_lines == 0);
}

static void test_good(void)
{
	struct jb le = { 0 }, be = { .swap = true };
	struct trec_jit_table t;

	jb_good(&le);
	check_good(&t, parse_buf(&le, NULL, &t), "little-endian");
	trec_jit_table_free(&t);
	jb_good(&be);
	check_good(&t, parse_buf(&be, NULL, &t), "big-endian");
	trec_jit_table_free(&t);

	int fd = memfd_create("jitdump", 0);
	CHECK("jitdump: memfd", fd >= 0 && write(fd, le.p, le.len) == (ssize_t)le.len);
	trec_jit_table_init(&t, NULL);
	check_good(&t, trec_jitdump_parse_fd(fd, NULL, &t), "file");
	trec_jit_table_free(&t);
	close(fd);

	/* every cut of the file: no refusal (a writer still writing), and the
	 * entries of the complete records */
	bool ok = true;
	for (size_t n = 40; n < le.len; n++) {
		trec_jit_table_init(&t, NULL);
		ok &= trec_jitdump_parse_mem(le.p, n, NULL, &t) == 0 && t.bad == 0 && t.n <= 3;
		trec_jit_table_free(&t);
	}
	CHECK("jitdump: a file cut anywhere after its header reads without refusals", ok);
	free(le.p);
	free(be.p);
}

static void test_moves_and_filter(void)
{
	static const struct drow rows[] = { { 0x2000, 7, "/m.js" }, { 0x2008, 8, NULL } };
	static const uint64_t pcs[] = { 0x1004, 0x5010 };
	struct trec_jit_filter f = { pcs, 2 };
	struct jb b = { 0 };
	struct trec_jit_table t;

	jb_header(&b, 64, 0); /* a longer header: its extra bytes are skipped */
	jb_load(&b, 10, 0x1000, 0x10, 1, "kept", 0);
	jb_debug(&b, 15, 0x2000, rows, 2);
	jb_load(&b, 20, 0x2000, 0x10, 2, "moved", 0);  /* 0x2000 holds no pc... */
	jb_move(&b, 30, 0x2000, 0x5000, 0x10, 2);       /* ...but it is moved onto 0x5010 */
	jb_move(&b, 40, 0x1000, 0x9000, 0x10, 99);     /* an index never loaded */
	jb_load(&b, 50, 0x3000, 0, 3, "empty code", 0);
	parse_buf(&b, NULL, &t);
	CHECK("jitdump: a move copies the rows, shifted with the code",
	      t.n == 3 && entry_is(&t, 2, 0x5000, 0x10, 30, 0, 2, "moved") &&
	      t.entries[2].num_lines == 2 && row_is(&t, t.entries[2].first_line, 0x5000, 7, "/m.js") &&
	      row_is(&t, t.entries[2].first_line + 1, 0x5008, 8, "/m.js") && t.entries[1].end_ns == 30);
	CHECK("jitdump: a move of an unknown index and an empty load are ignored, not refused",
	      t.bad == 0 && t.entries[0].end_ns == 0);
	CHECK("jitdump: a moved entry shares its name, not a copy (moves of long names "
	      "cannot multiply the table's memory)",
	      t.entries[2].name == t.entries[1].name);
	trec_jit_table_free(&t);

	parse_buf(&b, &f, &t);
	CHECK("jitdump: the filter drops loads holding no sampled pc (and so their moves)",
	      t.n == 1 && entry_is(&t, 0, 0x1000, 0x10, 10, 0, 1, "kept"));
	trec_jit_table_free(&t);
	free(b.p);
}

static void test_bad_headers(void)
{
	struct jb b = { 0 };
	struct trec_jit_table t;

	jb_header(&b, 40, 0);
	b.p[0] ^= 1;
	CHECK("jitdump: wrong magic refused", parse_buf(&b, NULL, &t) == -EINVAL && strstr(t.why, "magic"));
	trec_jit_table_free(&t);
	b.p[0] ^= 1;
	CHECK("jitdump: shorter than a header refused",
	      (trec_jit_table_init(&t, NULL), trec_jitdump_parse_mem(b.p, 39, NULL, &t)) == -EINVAL &&
	      strstr(t.why, "shorter"));
	trec_jit_table_free(&t);
	free(b.p);

	b = (struct jb){ 0 };
	jb_header(&b, 40, 2);
	CHECK("jitdump: unknown flags refused (as perf does)",
	      parse_buf(&b, NULL, &t) == -EINVAL && strstr(t.why, "flags"));
	trec_jit_table_free(&t);
	free(b.p);

	b = (struct jb){ 0 };
	jb_header(&b, 40, TREC_JITDUMP_FLAG_ARCH_TIMESTAMP);
	jb_load(&b, 123456789, 0x1000, 0x10, 1, "tsc", 0);
	jb_move(&b, 123456799, 0x1000, 0x2000, 0x10, 1);
	jb_prefix(&b, TREC_JITDUMP_CODE_CLOSE, 16, 123456800);
	CHECK("jitdump: arch timestamps: no times, marked, the move still applies",
	      parse_buf(&b, NULL, &t) == 0 && (t.flags & TREC_JIT_F_NO_TIME) && t.n == 2 &&
	      entry_is(&t, 0, 0x1000, 0x10, 0, 0, 1, "tsc") && entry_is(&t, 1, 0x2000, 0x10, 0, 0, 1, "tsc"));
	trec_jit_table_free(&t);
	free(b.p);

	b = (struct jb){ 0 };
	jb_header(&b, 40, 0);
	jb_load(&b, 0, 0x1000, 0x10, 1, "whole", 0);
	jb_prefix(&b, TREC_JITDUMP_CODE_CLOSE, 16, UINT64_MAX);
	CHECK("jitdump: a load at 0 closed at 2^64 - 1 keeps a lifetime the format can store",
	      parse_buf(&b, NULL, &t) == 0 && t.n == 1 && t.entries[0].end_ns == UINT64_MAX - 1);
	trec_jit_table_free(&t);
	free(b.p);

	b = (struct jb){ 0 };
	jb_header(&b, 40, 0);
	memcpy(b.p + 8, "\x10\0\0\0", 4); /* header size 16 */
	CHECK("jitdump: a header size below 40 refused", parse_buf(&b, NULL, &t) == -EINVAL);
	trec_jit_table_free(&t);
	free(b.p);
}

static void test_bad_records(void)
{
	struct jb b = { 0 };
	struct trec_jit_table t;

	jb_header(&b, 40, 0);
	/* code size over its record */
	jb_prefix(&b, TREC_JITDUMP_CODE_LOAD, 56 + 4, 1);
	jb_u32(&b, 1); jb_u32(&b, 1); jb_u64(&b, 0x1000); jb_u64(&b, 0x1000); jb_u64(&b, 1ULL << 40); jb_u64(&b, 1);
	jb_put(&b, "big", 4);
	/* a name without its NUL */
	jb_prefix(&b, TREC_JITDUMP_CODE_LOAD, 56 + 4, 2);
	jb_u32(&b, 1); jb_u32(&b, 1); jb_u64(&b, 0x2000); jb_u64(&b, 0x2000); jb_u64(&b, 0); jb_u64(&b, 2);
	jb_put(&b, "abcd", 4);
	/* a range past 2^64 */
	jb_load(&b, 3, UINT64_MAX - 4, 0x10, 3, "wraps", 0);
	/* row count over what the record can hold */
	jb_prefix(&b, TREC_JITDUMP_CODE_DEBUG_INFO, 32 + 17, 4);
	jb_u64(&b, 0x3000); jb_u64(&b, 1000000);
	jb_put(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 17);
	/* a row whose name runs past the record */
	jb_prefix(&b, TREC_JITDUMP_CODE_DEBUG_INFO, 32 + 20, 5);
	jb_u64(&b, 0x3000); jb_u64(&b, 1);
	jb_u64(&b, 0x3000); jb_u32(&b, 1); jb_u32(&b, 0); jb_put(&b, "abcd", 4);
	/* a MOVE too short */
	jb_prefix(&b, TREC_JITDUMP_CODE_MOVE, 20, 6);
	jb_u32(&b, 0);
	/* a good load: its rows were dropped with the bad record */
	jb_load(&b, 7, 0x4000, 0x10, 4, "good", 0);
	/* a record size below the prefix: the end */
	jb_prefix(&b, TREC_JITDUMP_CODE_LOAD, 8, 8);
	jb_load(&b, 9, 0x5000, 0x10, 5, "unreachable", 0);

	int err = parse_buf(&b, NULL, &t);
	CHECK("jitdump: bad records refused and counted, good ones kept",
	      err == 0 && t.n == 1 && entry_is(&t, 0, 0x4000, 0x10, 7, 0, 4, "good") &&
	      t.entries[0].num_lines == 0 && t.bad == 7);
	CHECK("jitdump: the first reason names the offset", strstr(t.why, "offset 40: CODE_LOAD code size"));
	trec_jit_table_free(&t);
	free(b.p);

	/* limits: max_entries, and a name cut at max_name */
	struct trec_jit_limits lim = TREC_JIT_LIMITS_DEFAULT;
	char longname[300];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	b = (struct jb){ 0 };
	jb_header(&b, 40, 0);
	for (int i = 0; i < 10; i++)
		jb_load(&b, 10 + i, 0x1000 + 0x100 * i, 0x10, i, longname, 0);
	lim.max_entries = 4;
	lim.max_name = 100;
	trec_jit_table_init(&t, &lim);
	trec_jitdump_parse_mem(b.p, b.len, NULL, &t);
	CHECK("jitdump: max_entries ends the table, truncated; names cut at max_name",
	      t.n == 4 && (t.flags & TREC_JIT_F_TRUNCATED) && strlen(t.entries[3].name) == 100);
	trec_jit_table_free(&t);
	free(b.p);
}

/* Rows must fit the code they precede: Node 20's V8 writes freed bytes as
 * file names, and packed rows read after them are out of step. */
static void test_row_rules(void)
{
	static const struct drow inside[] = { { 0x1000, 1, "/a.js" }, { 0x100f, 2, NULL } };
	static const struct drow outside[] = { { 0x1000, 1, "/a.js" }, { 0x1010, 2, NULL } };
	static const struct drow garbage[] = { { 0x1000, 1, "\t\x1a\x01" } };
	struct jb b = { 0 };
	struct trec_jit_table t;

	jb_header(&b, 40, 0);
	jb_debug(&b, 1, 0x1000, inside, 2);
	jb_load(&b, 2, 0x1000, 0x10, 1, "inside", 0);
	jb_debug(&b, 3, 0x1000, outside, 2);
	jb_load(&b, 4, 0x1000, 0x10, 2, "outside", 0);
	jb_debug(&b, 5, 0x2000, inside, 2); /* says it is for other code */
	jb_load(&b, 6, 0x1000, 0x10, 3, "other", 0);
	jb_debug(&b, 7, 0x1000, garbage, 1);
	jb_load(&b, 8, 0x1000, 0x10, 4, "garbage", 0);
	parse_buf(&b, NULL, &t);
	CHECK("jitdump: rows inside their code are kept",
	      t.n == 4 && t.entries[0].num_lines == 2 && row_is(&t, 1, 0x100f, 2, "/a.js"));
	CHECK("jitdump: rows outside the code, for other code, or with control bytes are refused",
	      t.entries[1].num_lines == 0 && t.entries[2].num_lines == 0 &&
	      t.entries[3].num_lines == 0 && t.bad == 3 && strstr(t.why, "outside the code"));
	trec_jit_table_free(&t);
	free(b.p);
}

/* Random damage to a good file never crashes (ASan/UBSan build) and
 * every entry stays within 2^64 with rows inside the table. */
static void test_mutations(void)
{
	struct jb b = { 0 };
	bool ok = true;

	jb_good(&b);
	uint8_t *buf = malloc(b.len);
	srand(2);
	for (int iter = 0; iter < 20000; iter++) {
		struct trec_jit_table t;
		size_t len = (size_t)rand() % (b.len + 1);

		memcpy(buf, b.p, b.len);
		for (int k = rand() % 4; k >= 0; k--)
			buf[rand() % b.len] = (uint8_t)(rand() % 2 ? rand() : "\0\xff\x10\x40"[rand() % 4]);
		trec_jit_table_init(&t, NULL);
		trec_jitdump_parse_mem(buf, len, NULL, &t);
		for (uint32_t i = 0; i < t.n; i++) {
			const struct trec_jit_entry *e = &t.entries[i];

			ok &= e->size && e->start + e->size >= e->start &&
			      (!e->end_ns || e->end_ns >= e->load_ns) &&
			      e->first_line + e->num_lines <= t.nlines;
		}
		for (uint32_t i = 0; i < t.nlines; i++)
			ok &= t.lines[i].file < t.nfiles;
		trec_jit_table_free(&t);
	}
	CHECK("jitdump: 20000 damaged inputs, entries always sane", ok);
	free(buf);
	free(b.p);
}

/* ---- JITSYMS emission ---------------------------------------------------- */

struct collect {
	struct trec_writer *w;
	int records;
};

static int write_rec(void *ctx, const struct trec_jitsyms *j)
{
	struct collect *c = ctx;

	c->records++;
	return trec_write_jitsyms(c->w, j);
}

static void test_emit(void)
{
	struct trec_jit_table t;
	struct trec_header h;
	char name[32], file[32];
	int fd = memfd_create("jitsyms", 0);

	/* 20000 entries, 3 rows each over 50 files: three records */
	trec_jit_table_init(&t, NULL);
	for (uint32_t i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		trec_jit_table_add(&t, 0x100000 + 0x100 * (uint64_t)i, 0x80, 1000 + i, i, name, strlen(name));
		for (uint32_t k = 0; k < 3; k++) {
			snprintf(file, sizeof(file), "/src/%u.js", (i + k) % 50);
			trec_jit_table_add_line(&t, 0x100000 + 0x100 * (uint64_t)i + 0x10 * k, i + k,
						(uint32_t)trec_jit_table_file(&t, file, strlen(file)));
		}
	}
	trec_header_init_host(&h);
	struct collect c = { trec_writer_open_fd(dup(fd), &h, NULL), 0 };
	struct trec_jitsyms hdr = { .time_ns = 5, .pid = 7, .source = TREC_JIT_JITDUMP,
				    .path = "/x/jit-7.dump" };
	CHECK("emit: written", c.w && trec_jit_table_emit(&t, &hdr, write_rec, &c) == 0 &&
	      trec_writer_close(c.w) == 0 && c.records == 3);

	/* read back: the records joined are the table */
	off_t size = lseek(fd, 0, SEEK_END);
	uint8_t *buf = malloc((size_t)size);
	int err;
	bool ok = pread(fd, buf, (size_t)size, 0) == size;
	struct trec_reader *r = trec_reader_open_mem(buf, (size_t)size, NULL, &err, NULL, 0);
	struct trec_record rec;
	uint32_t at = 0;
	while (ok && r && trec_reader_next(r, &rec) == 1) {
		const struct trec_jitsyms *j = &rec.u.jitsyms;

		ok &= rec.type == TREC_REC_JITSYMS && j->pid == 7 && j->time_ns == 5 &&
		      !strcmp(j->path, "/x/jit-7.dump") && j->num_entries <= TREC_JIT_ENTRIES_PER_RECORD &&
		      j->num_files <= 50;
		for (uint32_t i = 0; ok && i < j->num_entries; i++, at++) {
			const struct trec_jit_entry *e = &j->entries[i], *x = &t.entries[at];

			ok &= e->start == x->start && e->size == x->size && e->load_ns == x->load_ns &&
			      e->code_index == x->code_index && !strcmp(e->name, x->name) &&
			      e->num_lines == 3;
			for (uint32_t k = 0; ok && k < 3; k++) {
				const struct trec_jit_line *l = &j->lines[e->first_line + k];
				const struct trec_jit_line *y = &t.lines[x->first_line + k];

				ok &= l->addr == y->addr && l->line == y->line &&
				      !strcmp(j->files[l->file], t.files[y->file]);
			}
		}
	}
	CHECK("emit: the records read back hold every entry, row and file", ok && at == 20000);
	trec_reader_close(r);
	free(buf);
	close(fd);
	trec_jit_table_free(&t);
}

int main(void)
{
	test_good();
	test_moves_and_filter();
	test_bad_headers();
	test_bad_records();
	test_row_rules();
	test_mutations();
	test_emit();
	return failures ? 1 : 0;
}
