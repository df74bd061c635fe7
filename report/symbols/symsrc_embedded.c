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
#include "upper_bound.h"
#include "report/archive/archive_store.h"
#include "report/symbols/symsrc.h"

/* A symbol of one of several level-sampled archives of a file. */
struct msym {
	uint64_t addr, size;
	size_t k; /* its archive */
};

/* The archives of one file: one per recording that embedded it; with
 * more than one, the union of their symbols. */
struct embedded {
	struct msym *syms;
	size_t nsyms, n;
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

static int cmp_msym(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* A sampled archive keeps, for each address its recording looks up, the
 * whole window of symbols trec_arc_symbol_holding() scans. The union of
 * the archives' symbols holds every such window, so it names each of
 * those addresses as the file's full table would. (One address, one
 * symbol: the archives agree on it, the first is kept.) */
static int merge_syms(struct embedded *e)
{
	size_t total = 0, m = 0;
	for (size_t k = 0; k < e->n; k++)
		total += trec_archive_tables(e->a[k])->num_syms;
	e->syms = malloc((total + 1) * sizeof(*e->syms));
	if (!e->syms)
		return -1;
	for (size_t k = 0; k < e->n; k++) {
		const struct trec_arc_tables *t = trec_archive_tables(e->a[k]);
		for (size_t i = 0; i < t->num_syms; i++)
			e->syms[m++] = (struct msym){ t->syms[i].addr, t->syms[i].size, k };
	}
	qsort(e->syms, m, sizeof(*e->syms), cmp_msym);
	e->nsyms = 0;
	for (size_t i = 0; i < m; i++)
		if (!e->nsyms || e->syms[e->nsyms - 1].addr != e->syms[i].addr)
			e->syms[e->nsyms++] = e->syms[i];
	return 0;
}

/* The archive whose own lookup of addr names it as the union does: the
 * one the holding symbol came from, or one that names no symbol there. */
static const struct trec_archive *naming_archive(const struct embedded *e, uint64_t addr)
{
	size_t i = TREC_UPPER_BOUND(e->syms, e->nsyms, addr, addr);
	for (size_t k = i; k > 0 && k + TREC_ARC_ENCLOSING_SCAN > i; k--)
		if (addr - e->syms[k - 1].addr < e->syms[k - 1].size)
			return e->a[e->syms[k - 1].k];
	for (size_t k = 0; k < e->n; k++) {
		uint64_t off;
		if (!trec_archive_symbol(e->a[k], addr, &off))
			return e->a[k];
	}
	return e->a[0];
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
	e->syms = NULL;
	e->nsyms = 0;
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
	if (e->n > 1 && merge_syms(e)) {
		snprintf(why, whylen, "%s: out of memory", f->path);
		free(e);
		return RP_SYMSRC_MISSING;
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

/* Level sampled archives of one file differ in which functions keep lines
 * and inlined calls, and which symbols: the first that has lines for addr
 * answers (its recording sampled that function, so it names it as well),
 * else the one that names addr as the union of their symbols does. */
static void lookup_archives(const struct embedded *e, uint64_t addr, struct trec_arc_result *r)
{
	for (size_t k = 0; k < e->n; k++) {
		trec_archive_lookup(e->a[k], addr, r);
		if (r->frames[0].file || r->num_frames > 1)
			return;
	}
	if (e->n > 1)
		trec_archive_lookup(naming_archive(e, addr), addr, r);
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
	struct embedded *e = handle;
	free(e->syms);
	free(e); /* the store owns the archives */
}

const struct rp_symsrc rp_symsrc_embedded = {
	.name = "embedded",
	.open = open_embedded,
	.lookup = lookup_embedded,
	.close = close_embedded,
};
