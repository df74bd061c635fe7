// SPDX-License-Identifier: MIT
/*
 * The embedded symbol source: the archive trecord wrote into the recording
 * (SYMTAB records), so frames symbolize without the recorded binaries.
 */
#include <stdio.h>
#include <string.h>

#include "archive_reader.h"
#include "symsrc.h"

static int open_embedded(const struct rp_symsrc_file *f, void **handle, char *why,
			 size_t whylen)
{
	const struct trec_archive *a =
		f->archives ? trec_archive_store_get(f->archives, f->file_id, f->path) : NULL;
	if (!a) {
		snprintf(why, whylen, "%s: no embedded symbols", f->path);
		return RP_SYMSRC_MISSING;
	}
	const struct trec_arc_tables *t = trec_archive_tables(a);
	/* An archive must describe the file the FILE record names. */
	if (f->build_id_len && t->build_id_len &&
	    (f->build_id_len != t->build_id_len ||
	     memcmp(f->build_id, t->build_id, t->build_id_len))) {
		snprintf(why, whylen, "%s: the embedded symbols are of another build-id", f->path);
		return RP_SYMSRC_MISMATCH;
	}
	*handle = (void *)a;
	return RP_SYMSRC_OK;
}

static int lookup_embedded(void *handle, uint64_t addr, struct rp_symres *res)
{
	struct trec_arc_result r;
	memset(res, 0, sizeof(*res));
	trec_archive_lookup(handle, addr, &r);
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
	(void)handle; /* the store owns the archive */
}

const struct rp_symsrc rp_symsrc_embedded = {
	.name = "embedded",
	.open = open_embedded,
	.lookup = lookup_embedded,
	.close = close_embedded,
};
