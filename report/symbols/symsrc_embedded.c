// SPDX-License-Identifier: MIT
/*
 * The embedded symbol source: the archive trecord wrote into the recording
 * (SYMTAB records), so frames symbolize without the recorded binaries.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"
#include "report/symbols/symsrc.h"

/* The archives of one file: one per recording that embedded it. */
struct embedded {
	size_t n;
	const struct trec_archive *a[];
};

/* An archive must describe the file the FILE record names. */
static bool same_build(const struct rp_symsrc_file *f, const struct trec_archive *a)
{
	const struct trec_arc_tables *t = trec_archive_tables(a);
	return !f->build_id_len || !t->build_id_len ||
	       (f->build_id_len == t->build_id_len &&
		!memcmp(f->build_id, t->build_id, t->build_id_len));
}

static int open_embedded(const struct rp_symsrc_file *f, void **handle, char *why,
			 size_t whylen)
{
	size_t n = f->archives ? trec_archive_store_archives(f->archives, f->file_id) : 0;
	struct embedded *e = malloc(sizeof(*e) + (n + 1) * sizeof(e->a[0]));
	bool mismatch = false;

	if (!e) {
		snprintf(why, whylen, "%s: out of memory", f->path);
		return RP_SYMSRC_MISSING;
	}
	e->n = 0;
	for (size_t k = 0; k < n; k++) {
		const struct trec_archive *a =
			trec_archive_store_get_nth(f->archives, f->file_id, f->path, k);
		if (a && !same_build(f, a))
			mismatch = true;
		else if (a && trec_archive_tables(a)->level == TREC_ARCHIVE_FULL)
			e->a[0] = a, e->n = 1, k = n; /* holds what any other one does */
		else if (a)
			e->a[e->n++] = a;
	}
	if (!e->n) {
		free(e);
		if (mismatch) {
			snprintf(why, whylen, "%s: the embedded symbols are of another build-id",
				 f->path);
			return RP_SYMSRC_MISMATCH;
		}
		snprintf(why, whylen, "%s: no embedded symbols", f->path);
		return RP_SYMSRC_MISSING;
	}
	*handle = e;
	return RP_SYMSRC_OK;
}

/* Level sampled archives of one file differ only in which functions keep
 * lines and inlined calls: the first that has them for addr answers. */
static void lookup_archives(const struct embedded *e, uint64_t addr, struct trec_arc_result *r)
{
	for (size_t k = 0; k < e->n; k++) {
		trec_archive_lookup(e->a[k], addr, r);
		if (r->frames[0].file || r->num_frames > 1)
			return;
	}
	if (e->n > 1)
		trec_archive_lookup(e->a[0], addr, r);
}

static int lookup_embedded(void *handle, uint64_t addr, struct rp_symres *res)
{
	struct trec_arc_result r = { 0 };
	memset(res, 0, sizeof(*res));
	lookup_archives(handle, addr, &r);
	res->symname = r.symbol;
	res->sym_start = r.sym_addr;
	/* Deeper chains than the symbolizer holds keep their innermost frames
	 * and the function itself. */
	uint32_t n = r.num_frames < RP_MAX_INLINE ? r.num_frames : RP_MAX_INLINE;
	for (uint32_t i = 0; i < n; i++) {
		const struct trec_arc_frame *fr = &r.frames[i == n - 1 ? r.num_frames - 1 : i];
		res->lines[i].func = fr->function;
		res->lines[i].file = fr->file;
		res->lines[i].line = fr->line;
	}
	res->nlines = r.symbol || r.frames[0].file || r.num_frames > 1 ? n : 0;
	return 0;
}

static void close_embedded(void *handle)
{
	free(handle); /* the store owns the archives */
}

const struct rp_symsrc rp_symsrc_embedded = {
	.name = "embedded",
	.open = open_embedded,
	.lookup = lookup_embedded,
	.close = close_embedded,
};
