// SPDX-License-Identifier: MIT
/*
 * The files that samples touched, so that trecord embeds the symbols of
 * those and only those; with level "sampled" also the addresses, so the
 * archive can keep lines only where samples landed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "archive.h"
#include "trec_format.h"
#include "trec_types.h"
#include "u64map.h"

/* Addresses of one file: a set in a u64map (values are a non-NULL mark). */
struct touched_file {
	struct trec_u64map addrs;
};

struct trec_touched {
	struct trec_u64map files; /* file id -> struct touched_file */
	int keep_addrs;
	int oom;                  /* sticky: some frame could not be noted */
};

struct trec_touched *trec_touched_new(int keep_addrs)
{
	struct trec_touched *t = calloc(1, sizeof(*t));
	if (t)
		t->keep_addrs = keep_addrs;
	return t;
}

void trec_touched_free(struct trec_touched *t)
{
	if (!t)
		return;
	uint64_t key;
	void *val;
	for (size_t it = 0; trec_u64map_next(&t->files, &it, &key, &val);) {
		struct touched_file *tf = val;
		trec_u64map_free(&tf->addrs);
		free(tf);
	}
	trec_u64map_free(&t->files);
	free(t);
}

static int note(struct trec_touched *t, const struct trec_rec_frame *f)
{
	int err = 0;
	if (f->kind != TREC_FRAME_NATIVE || !f->file_id ||
	    (f->flags & (TREC_FRAME_F_ERROR | TREC_FRAME_F_ABSOLUTE)))
		return 0;
	struct touched_file *tf = trec_u64map_get(&t->files, f->file_id);
	if (!tf) {
		tf = calloc(1, sizeof(*tf));
		if (!tf)
			return -ENOMEM;
		trec_u64map_put(&t->files, f->file_id, tf, &err);
		if (err) {
			free(tf);
			return err;
		}
	}
	if (!t->keep_addrs)
		return 0;
	/* A return address may be the first byte after its call's function. */
	uint64_t addr = f->addr - ((f->flags & TREC_FRAME_F_RETURN_ADDRESS) && f->addr ? 1 : 0);
	if (!trec_u64map_get(&tf->addrs, addr))
		trec_u64map_put(&tf->addrs, addr, (void *)1, &err);
	return err;
}

int trec_touched_frame(struct trec_touched *t, const struct trec_rec_frame *f)
{
	int err = note(t, f);
	if (err)
		t->oom = 1;
	return err;
}

size_t trec_touched_count(const struct trec_touched *t)
{
	return t->files.n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int trec_archive_write_touched(struct trec_writer *w, const struct trec_touched *t, int level,
			       trec_archive_lookup_fn lookup, void *ctx,
			       struct trec_archive_totals *tot)
{
	size_t n = t->files.n, k = 0;
	uint64_t *ids = calloc(n + 1, sizeof(*ids));
	uint64_t key;
	void *val;
	int rc = 0;

	memset(tot, 0, sizeof(*tot));
	if (t->oom)
		fprintf(stderr, "trecord: warning: out of memory while noting sampled files: "
			"some symbols are not embedded\n");
	if (!ids)
		return -ENOMEM;
	for (size_t it = 0; trec_u64map_next(&t->files, &it, &key, &val);)
		ids[k++] = key;
	qsort(ids, k, sizeof(*ids), cmp_u64);
	for (size_t i = 0; i < k && !rc; i++) {
		struct touched_file *tf = trec_u64map_get(&t->files, ids[i]);
		struct trec_archive_file f = { .file_id = ids[i] };
		struct trec_archive_totals one;
		char buf[4096];
		uint64_t *addrs = NULL;
		size_t na = 0;
		if (lookup(ctx, ids[i], &f, buf, sizeof(buf))) {
			tot->failed++;
			continue;
		}
		if (level == TREC_ARCHIVE_SAMPLED) {
			addrs = malloc((tf->addrs.n + 1) * sizeof(*addrs));
			if (!addrs) {
				rc = -ENOMEM;
				break;
			}
			for (size_t it = 0; trec_u64map_next(&tf->addrs, &it, &key, &val);)
				addrs[na++] = key;
			f.addrs = addrs;
			f.naddrs = na;
		}
		rc = trec_archive_write_all(w, &f, 1, level, &one);
		free(addrs);
		tot->files += one.files;
		tot->failed += one.failed;
		tot->bytes += one.bytes;
		tot->build_ns += one.build_ns;
	}
	free(ids);
	return rc;
}
