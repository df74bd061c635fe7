// SPDX-License-Identifier: MIT
/*
 * trecord's side of archives through the real format library: write the
 * archives of several files (one missing, one replaced) into a .tr file,
 * read it back, and join the SYMTAB parts with the report-side store.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/archive/archive.h"
#include "archive_testlib.h"
#include "trec_format.h"
#include "trec_types.h"
#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"

static int failures;

static void check(int ok, const char *name)
{
	printf("%s: archive write: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static int same_archive(const struct trec_archive *a, const uint8_t *p, size_t n)
{
	struct trec_archive *b = NULL;
	if (!a || trec_archive_parse(p, n, &b, NULL, 0))
		return 0;
	const struct trec_arc_tables *x = trec_archive_tables(a), *y = trec_archive_tables(b);
	int ok = x->num_syms == y->num_syms && x->num_lines == y->num_lines &&
		 x->num_strings == y->num_strings && x->num_depths == y->num_depths &&
		 !memcmp(x->syms, y->syms, x->num_syms * sizeof(*x->syms)) &&
		 !memcmp(x->lines, y->lines, x->num_lines * sizeof(*x->lines));
	trec_archive_free(b);
	return ok;
}

/* The touched-file tracker: only native frames of a file count. */
struct lookup_ctx {
	const char *path;
	int calls;
	bool hurry; /* as after a second stop signal */
};

static int lookup(void *ctx, uint64_t file_id, struct trec_archive_file *f, char *buf,
		  size_t buflen)
{
	struct lookup_ctx *c = ctx;
	c->calls++;
	if (c->hurry)
		return -EINTR;
	if (file_id != 1)
		return -1;
	snprintf(buf, buflen, "%s", c->path);
	f->path = buf;
	return 0;
}

static void touched_tests(const char *busy_path, const struct trec_archive *full)
{
	const struct trec_arc_tables *ft = trec_archive_tables(full);
	/* A function with lines; a return address one past its last byte
	 * must count for it. */
	const struct trec_arc_sym *s = NULL;
	uint64_t off;
	for (size_t i = 0; i < ft->num_lines && !s; i++)
		if (ft->lines[i].file)
			s = trec_archive_symbol(full, ft->lines[i].addr, &off);
	/* A second one, sampled only through a runtime pc. */
	const struct trec_arc_sym *s2 = NULL;
	for (size_t i = 0; i < ft->num_lines && s && !s2; i++) {
		const struct trec_arc_sym *c =
			ft->lines[i].file ? trec_archive_symbol(full, ft->lines[i].addr, &off) : NULL;
		if (c && c != s)
			s2 = c;
	}
	if (!s || !s2) {
		check(0, "the busy workload has two functions with lines");
		return;
	}
	const uint64_t bias = 0x7f0000000000ULL;
	struct trec_rec_frame frames[] = {
		{ .file_id = 1, .addr = s->addr + s->size, .kind = TREC_FRAME_NATIVE,
		  .flags = TREC_FRAME_F_RETURN_ADDRESS },
		{ .file_id = 2, .addr = 0x10, .kind = TREC_FRAME_KERNEL },
		{ .file_id = 3, .addr = 5, .kind = TREC_FRAME_UNKNOWN, .flags = TREC_FRAME_F_ERROR },
		{ .file_id = 0, .addr = 0x1234, .kind = TREC_FRAME_NATIVE, .flags = TREC_FRAME_F_ABSOLUTE },
		{ .file_id = 9, .addr = 0x1234, .kind = TREC_FRAME_NATIVE },
	};
	/* A sample of pid 7 taken before its mappings were known: its leaf is
	 * a runtime pc, a return address one past s2's end. */
	struct trec_rec_frame early = { .addr = bias + s2->addr + s2->size, .kind = TREC_FRAME_NATIVE,
					.flags = TREC_FRAME_F_ABSOLUTE |
						 TREC_FRAME_F_RETURN_ADDRESS };
	struct trec_rec_frame stray = { .addr = 0x1000, .kind = TREC_FRAME_NATIVE,
					.flags = TREC_FRAME_F_ABSOLUTE };
	struct trec_mapping maps[] = {
		{ .start = 0x1000, .end = 0x2000 }, /* anonymous: no file explains it */
		{ .start = bias + s2->addr - 0x100, .end = bias + s2->addr + s2->size + 0x100,
		  .file_id = 1, .bias = bias },
	};
	struct trec_mapping_snapshot snap = { .pid = 7, .num_mappings = 2, .mappings = maps };
	struct trec_touched *t = trec_touched_new(1);
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		trec_touched_frame(t, 1, &frames[i]);
	check(trec_touched_count(t) == 2, "only native frames of files are tracked");
	trec_touched_frame(t, 7, &early);
	trec_touched_frame(t, 7, &stray);
	trec_touched_frame(t, 8, &early); /* a pid without any snapshot */
	check(!trec_touched_mappings(t, &snap) && !trec_touched_mappings(t, &snap),
	      "a mapping snapshot is noted (twice: deduplicated)");

	char path[] = "/tmp/trec-arc-touched.XXXXXX";
	int fd = mkstemp(path);
	struct trec_header h;
	trec_header_init_host(&h);
	struct trec_writer *w = trec_writer_open_fd(fd, &h, NULL);
	struct lookup_ctx c = { .path = busy_path };
	struct trec_archive_totals tot;
	int rc = trec_archive_write_touched(w, t, TREC_ARCHIVE_SAMPLED, lookup, &c, &tot);
	trec_writer_close(w);
	check(!rc && c.calls == 2 && tot.files == 1 && tot.failed == 1 && !tot.skipped,
	      "touched files are archived, an unknown file id is counted as failed");
	char path2[] = "/tmp/trec-arc-touched2.XXXXXX";
	int fd2 = mkstemp(path2);
	struct lookup_ctx hurried = { .path = busy_path, .hurry = true };
	struct trec_writer *w2 = trec_writer_open_fd(fd2, &h, NULL);
	rc = trec_archive_write_touched(w2, t, TREC_ARCHIVE_SAMPLED, lookup, &hurried, &tot);
	trec_writer_close(w2);
	unlink(path2);
	check(!rc && tot.skipped == 2 && !tot.files && !tot.failed,
	      "a lookup cut short by a second signal counts as skipped, not failed");

	int err = 0;
	struct trec_reader *r = trec_reader_open(path, NULL, &err, NULL, 0);
	struct trec_archive_store *st = trec_archive_store_new(NULL, NULL);
	struct trec_record rec;
	while (r && trec_reader_next(r, &rec) == 1)
		if (rec.type == TREC_REC_SYMTAB)
			trec_archive_store_add(st, &rec.u.blob);
	const struct trec_archive *a = trec_archive_store_get(st, 1, "busy");
	const struct trec_arc_tables *at = a ? trec_archive_tables(a) : NULL;
	int inside = 1, lines = 0, lines2 = 0;
	for (size_t i = 0; at && i < at->num_lines; i++) {
		if (!at->lines[i].file)
			continue;
		uint64_t la = at->lines[i].addr;
		int in1 = la >= s->addr && la < s->addr + s->size;
		int in2 = la >= s2->addr && la < s2->addr + s2->size;
		lines += in1;
		lines2 += in2;
		inside &= in1 || in2;
	}
	/* The two functions still name their return addresses' pcs (minus 1). */
	const struct trec_arc_sym *n1 = at ? trec_arc_symbol_holding(at, s->addr + s->size - 1) : NULL;
	const struct trec_arc_sym *n2 = at ? trec_arc_symbol_holding(at, s2->addr + s2->size - 1) : NULL;
	char name[200];
	snprintf(name, sizeof(name), "level sampled keeps the symbols naming the sampled pcs "
		 "(%zu of %zu) and lines only of the functions sampled", at ? at->num_syms : 0,
		 ft->num_syms);
	check(at && at->level == TREC_ARCHIVE_SAMPLED && at->num_syms <= 2 * TREC_ARC_ENCLOSING_SCAN &&
		      at->num_syms < ft->num_syms && n1 && n2 &&
		      !strcmp(at->strings[n1->name], ft->strings[s->name]) &&
		      !strcmp(at->strings[n2->name], ft->strings[s2->name]) && lines > 0 && inside,
	      name);
	check(lines2 > 0, "a runtime pc keeps the lines of the function its pid's snapshot maps it to");
	trec_archive_store_free(st);
	trec_reader_close(r);
	unlink(path);
	trec_touched_free(t);
}

int main(void)
{
	char path[] = "/tmp/trec-arc-write.XXXXXX";
	size_t nbusy = 0, ninl = 0;
	uint8_t *busy, *inl;
	if (archive_test_setup() || !(busy = workload_archive("busy", TREC_ARCHIVE_FULL, &nbusy)) ||
	    !(inl = workload_archive("inlines", TREC_ARCHIVE_FULL, &ninl)))
		return 1;
	struct trec_archive *ia = NULL;
	trec_archive_parse(inl, ninl, &ia, NULL, 0);
	const struct trec_arc_tables *it = trec_archive_tables(ia);
	uint8_t wrong[20] = { 0xde, 0xad };

	int fd = mkstemp(path);
	struct trec_header h;
	trec_header_init_host(&h);
	struct trec_writer *w = trec_writer_open_fd(fd, &h, NULL);
	char busy_path[4096], inl_path[4096];
	snprintf(busy_path, sizeof(busy_path), "%s", workload("busy"));
	snprintf(inl_path, sizeof(inl_path), "%s", workload("inlines"));
	const struct trec_archive_file files[] = {
		{ .file_id = 1, .path = busy_path },
		{ .file_id = 2, .path = inl_path, .build_id = it->build_id,
		  .build_id_len = it->build_id_len },
		{ .file_id = 3, .path = "/nonexistent/lib.so", .name = "lib.so" },
		{ .file_id = 4, .path = busy_path, .build_id = wrong, .build_id_len = sizeof(wrong) },
	};
	struct trec_archive_totals tot;
	int rc = trec_archive_write_all(w, files, 4, TREC_ARCHIVE_FULL, &tot);
	check(!rc && tot.files == 2 && tot.failed == 2 && tot.bytes == nbusy + ninl,
	      "two archives written, a missing and a replaced file skipped");
	rc = trec_archive_write_all(w, files, 2, TREC_ARCHIVE_NONE, &tot);
	check(!rc && tot.files == 0 && tot.bytes == 0, "level none writes nothing");
	rc = trec_archive_write_parts(w, 77, inl, ninl, 100);
	check(!rc, "an archive written in 100-byte parts");
	check(trec_archive_write_parts(w, 78, inl, ninl, 0) == -EINVAL &&
		      trec_archive_write_parts(w, 78, inl, ninl, TREC_ARC_PART_MAX + 1) == -EINVAL,
	      "part sizes of 0 or above the format limit are refused");
	struct trec_summary sum = { 0 };
	trec_write_summary(w, &sum);
	check(!trec_writer_close(w), "recording closed");

	int err = 0;
	struct trec_reader *r = trec_reader_open(path, NULL, &err, NULL, 0);
	struct trec_archive_store *s = trec_archive_store_new(NULL, NULL);
	struct trec_record rec;
	size_t symtabs = 0, parts77 = 0;
	while (r && trec_reader_next(r, &rec) == 1) {
		if (rec.type != TREC_REC_SYMTAB)
			continue;
		symtabs++;
		parts77 += rec.u.blob.file_id == 77;
		trec_archive_store_add(s, &rec.u.blob);
	}
	check(r && parts77 == (ninl + 99) / 100 && symtabs == parts77 + 2,
	      "the recording holds one SYMTAB per small archive and every part of the split one");
	check(same_archive(trec_archive_store_get(s, 1, "busy"), busy, nbusy) &&
		      same_archive(trec_archive_store_get(s, 2, "inlines"), inl, ninl),
	      "archives read back equal the built ones");
	check(same_archive(trec_archive_store_get(s, 77, "split"), inl, ninl),
	      "the split archive is joined back");
	check(!trec_archive_store_get(s, 3, "x") && !trec_archive_store_get(s, 4, "x"),
	      "skipped files have no archive");
	trec_archive_store_free(s);
	trec_reader_close(r);
	unlink(path);
	struct trec_archive *ba = NULL;
	if (!trec_archive_parse(busy, nbusy, &ba, NULL, 0))
		touched_tests(busy_path, ba);
	trec_archive_free(ba);
	trec_archive_free(ia);
	free(busy);
	free(inl);
	return failures ? 1 : 0;
}
