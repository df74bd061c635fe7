// SPDX-License-Identifier: MIT
/*
 * The archive encoder's tables: string interning while collecting, then
 * the canonical order the format requires (sorted unique strings, tables
 * sorted by address with one entry per address).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/containers/vec.h"
#include "format/dedup.h"
#include "format/elf/elf_names.h"
#include "record/archive/archive_build.h"
#include "upper_bound.h"


/* Word at a time: byte-wise FNV over every symbol and line's file name
 * was the largest part of embedding at the end of an -a recording. */
static uint64_t str_hash(const char *s)
{
	return trec_hash(s, strlen(s));
}

static int rehash(struct arc_builder *b)
{
	size_t n = b->nslots ? b->nslots * 2 : 1024;
	while (n < (b->t.num_strings + 1) * 2) /* a builder that starts with strings */
		n *= 2;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < b->t.num_strings; i++) {
		size_t h = str_hash(b->strs[i]) & (n - 1);
		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(b->slots);
	b->slots = slots;
	b->nslots = n;
	return 0;
}

uint32_t arc_intern(struct arc_builder *b, const char *s)
{
	if (b->oom)
		return 0;
	/* Line rows repeat their file name: one strcmp instead of hash + probe. */
	if (b->last_str < b->t.num_strings && !strcmp(b->strs[b->last_str], s))
		return b->last_str;
	if ((b->t.num_strings + 1) * 2 > b->nslots && rehash(b))
		goto oom;
	size_t h = str_hash(s) & (b->nslots - 1);
	for (; b->slots[h]; h = (h + 1) & (b->nslots - 1)) {
		uint32_t i = b->slots[h] - 1;
		if (!strcmp(b->strs[i], s))
			return b->last_str = i;
	}
	if (TREC_GROW(b->strs, b->cap_strs, b->t.num_strings + 1, 64))
		goto oom;
	char *copy = strdup(s);
	if (!copy)
		goto oom;
	uint32_t idx = (uint32_t)b->t.num_strings++;
	b->strs[idx] = copy;
	b->slots[h] = idx + 1;
	return b->last_str = idx;
oom:
	b->oom = 1;
	return 0;
}

void arc_add_sym(struct arc_builder *b, uint64_t addr, uint64_t size, const char *name,
		 uint8_t bind)
{
	uint32_t n = arc_intern(b, name);
	if (b->oom || TREC_GROW(b->t.syms, b->cap_syms, b->t.num_syms + 1, 64)) {
		b->oom = 1;
		return;
	}
	b->t.syms[b->t.num_syms++] = (struct trec_arc_sym){
		.addr = addr, .size = size, .name = n, .bind = bind };
}

void arc_add_line(struct arc_builder *b, uint64_t addr, const char *file, uint32_t line)
{
	uint32_t f = file ? arc_intern(b, file) + 1 : 0;
	if (b->oom || TREC_GROW(b->t.lines, b->cap_lines, b->t.num_lines + 1, 64)) {
		b->oom = 1;
		return;
	}
	b->t.lines[b->t.num_lines++] = (struct trec_arc_line){
		.addr = addr, .file = f, .line = file ? line : 0 };
}

/* One more element for a short table (sections, segments): its slot, or
 * NULL when full (max) or out of memory (then b->oom). */
static void *append(struct arc_builder *b, void **arr, size_t *n, size_t max, size_t elem)
{
	if (b->oom || *n >= max)
		return NULL;
	uint8_t *v = realloc(*arr, (*n + 1) * elem);
	if (!v) {
		b->oom = 1;
		return NULL;
	}
	*arr = v;
	return v + (*n)++ * elem;
}

void arc_add_section(struct arc_builder *b, const char *name, uint32_t type, uint64_t flags,
		     uint64_t addr, uint64_t size)
{
	uint32_t n = arc_intern(b, name);
	struct trec_arc_elfsec *s = append(b, (void **)&b->t.sections, &b->t.num_sections,
					   TREC_ARC_MAX_SECTIONS, sizeof(*s));
	if (s)
		*s = (struct trec_arc_elfsec){
			.name = n, .type = type, .flags = flags, .addr = addr, .size = size };
}

void arc_add_segment(struct arc_builder *b, uint32_t flags, uint64_t vaddr, uint64_t memsz,
		     uint64_t align)
{
	struct trec_arc_segment *g = append(b, (void **)&b->t.segments, &b->t.num_segments,
					    TREC_ARC_MAX_SEGMENTS, sizeof(*g));
	if (g)
		*g = (struct trec_arc_segment){
			.flags = flags, .vaddr = vaddr, .memsz = memsz, .align = align };
}

void arc_add_inline(struct arc_builder *b, unsigned depth, uint64_t lo, uint64_t hi,
		    const char *name, const char *call_file, uint32_t call_line)
{
	if (depth == 0 || depth > TREC_ARC_MAX_DEPTH || lo >= hi || b->oom)
		return;
	uint32_t n = arc_intern(b, name);
	uint32_t cf = call_file ? arc_intern(b, call_file) + 1 : 0;
	if (b->oom)
		return;
	if (depth > b->t.num_depths) {
		struct trec_arc_depth *nd = realloc(b->t.depths, depth * sizeof(*nd));
		size_t *nc = nd ? realloc(b->cap_depth, depth * sizeof(*nc)) : NULL;
		if (nd)
			b->t.depths = nd;
		if (!nc) {
			b->oom = 1;
			return;
		}
		b->cap_depth = nc;
		for (size_t d = b->t.num_depths; d < depth; d++) {
			b->t.depths[d] = (struct trec_arc_depth){ 0 };
			b->cap_depth[d] = 0;
		}
		b->t.num_depths = depth;
	}
	struct trec_arc_depth *d = &b->t.depths[depth - 1];
	if (TREC_GROW(d->v, b->cap_depth[depth - 1], d->num + 1, 64)) {
		b->oom = 1;
		return;
	}
	d->v[d->num++] = (struct trec_arc_inline){
		.lo = lo, .hi = hi, .name = n, .call_file = cf, .call_line = call_line };
}

/* ---- canonical order ---------------------------------------------------- */

static int cmp_str_idx(const void *a, const void *b, void *ctx)
{
	char **strs = ctx;
	return strcmp(strs[*(const uint32_t *)a], strs[*(const uint32_t *)b]);
}

/* Of two symbols at one address, the one to keep: perf's rule, shared
 * with treport's local-file source (format/elf/elf_names.h); a is later
 * in the symbol table than b, so ties keep b. */
static int sym_better(const struct arc_builder *b, const struct trec_arc_sym *x,
		      const struct trec_arc_sym *y)
{
	struct trec_sym_alias ax = { x->size, x->bind, b->strs[x->name] };
	struct trec_sym_alias ay = { y->size, y->bind, b->strs[y->name] };
	return trec_sym_alias_cmp(&ax, &ay) < 0;
}

/* By address, then symbol table order (the collection order). */
static int cmp_sym_idx(const void *a, const void *b, void *ctx)
{
	const struct trec_arc_sym *s = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (s[i].addr != s[j].addr)
		return s[i].addr < s[j].addr ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int finalize_syms(struct arc_builder *b)
{
	size_t n = b->t.num_syms, out = 0;
	uint32_t *perm = malloc((n + 1) * sizeof(*perm));
	struct trec_arc_sym *s = malloc((n + 1) * sizeof(*s));
	if (!perm || !s) {
		free(perm);
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, n, sizeof(*perm), cmp_sym_idx, b->t.syms);
	for (size_t k = 0; k < n; k++) {
		const struct trec_arc_sym *c = &b->t.syms[perm[k]];
		if (out && s[out - 1].addr == c->addr) {
			if (sym_better(b, c, &s[out - 1]))
				s[out - 1] = *c;
			continue;
		}
		s[out++] = *c;
	}
	free(perm);
	free(b->t.syms);
	b->t.syms = s;
	b->cap_syms = n + 1;
	/* Unsized symbols (assembly labels) extend to the next symbol. */
	for (size_t i = 0; i + 1 < out; i++)
		if (!s[i].size)
			s[i].size = s[i + 1].addr - s[i].addr;
	b->t.num_syms = out;
	return 0;
}

/* Rows sorted by address; at one address a gap sorts before a row (a new
 * sequence starts where the previous ended), then collection order. */
static int cmp_line_idx(const void *a, const void *b, void *ctx)
{
	const struct trec_arc_line *l = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (l[i].addr != l[j].addr)
		return l[i].addr < l[j].addr ? -1 : 1;
	if ((l[i].file == 0) != (l[j].file == 0))
		return l[i].file == 0 ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int finalize_lines(struct arc_builder *b)
{
	size_t n = b->t.num_lines;
	if (!n)
		return 0;
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct trec_arc_line *out = malloc(n * sizeof(*out));
	if (!perm || !out) {
		free(perm);
		free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, n, sizeof(*perm), cmp_line_idx, b->t.lines);
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		const struct trec_arc_line *r = &b->t.lines[perm[k]];
		/* The last row at an address is the one that covers it. */
		if (m && out[m - 1].addr == r->addr) {
			out[m - 1] = *r;
			/* It may now repeat its predecessor, or be a leading gap. */
			if (m >= 2 ? out[m - 2].file == r->file && out[m - 2].line == r->line
				   : !r->file)
				m--;
			continue;
		}
		/* A row repeating the one before it adds nothing. */
		if (m ? out[m - 1].file == r->file && out[m - 1].line == r->line : !r->file)
			continue;
		out[m++] = *r;
	}
	free(perm);
	free(b->t.lines);
	b->t.lines = out;
	b->t.num_lines = m;
	b->cap_lines = n;
	return 0;
}

static int cmp_inline(const void *a, const void *b)
{
	const struct trec_arc_inline *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi > y->hi ? -1 : x->hi < y->hi; /* wider first */
}

static void finalize_inlines(struct arc_builder *b)
{
	size_t depths = 0;
	for (size_t d = 0; d < b->t.num_depths; d++) {
		struct trec_arc_depth *dp = &b->t.depths[d];
		qsort(dp->v, dp->num, sizeof(*dp->v), cmp_inline);
		size_t out = 0;
		/* Same-depth ranges must not overlap (lookup is a binary search);
		 * broken DWARF that overlaps keeps the first range. */
		for (size_t i = 0; i < dp->num; i++)
			if (!out || dp->v[i].lo >= dp->v[out - 1].hi)
				dp->v[out++] = dp->v[i];
		dp->num = out;
		if (out)
			depths = d + 1;
	}
	for (size_t d = depths; d < b->t.num_depths; d++) {
		free(b->t.depths[d].v);
		b->t.depths[d].v = NULL;
	}
	b->t.num_depths = depths;
}

/* Sorts the strings still referenced, drops the rest, renumbers users. */
static int finalize_strings(struct arc_builder *b)
{
	size_t ns = b->t.num_strings, nu = 0;
	uint8_t *used = calloc(ns + 1, 1);
	uint32_t *perm = malloc((ns + 1) * sizeof(*perm));
	uint32_t *remap = malloc((ns + 1) * sizeof(*remap));
	char **strs = malloc((ns + 1) * sizeof(*strs));
	const char **view = malloc((ns + 1) * sizeof(*view));
	int err = -ENOMEM;

	if (!used || !perm || !remap || !strs || !view)
		goto out;
	for (size_t i = 0; i < b->t.num_syms; i++)
		used[b->t.syms[i].name] = 1;
	for (size_t i = 0; i < b->t.num_lines; i++)
		if (b->t.lines[i].file)
			used[b->t.lines[i].file - 1] = 1;
	for (size_t d = 0; d < b->t.num_depths; d++)
		for (size_t i = 0; i < b->t.depths[d].num; i++) {
			used[b->t.depths[d].v[i].name] = 1;
			if (b->t.depths[d].v[i].call_file)
				used[b->t.depths[d].v[i].call_file - 1] = 1;
		}
	for (size_t i = 0; i < b->t.num_sections; i++)
		used[b->t.sections[i].name] = 1;
	for (size_t i = 0; i < ns; i++) {
		if (used[i])
			perm[nu++] = (uint32_t)i;
		else
			free(b->strs[i]);
	}
	qsort_r(perm, nu, sizeof(*perm), cmp_str_idx, b->strs);
	for (size_t k = 0; k < nu; k++) {
		remap[perm[k]] = (uint32_t)k;
		strs[k] = b->strs[perm[k]];
		view[k] = strs[k];
	}
	free(b->strs);
	b->strs = strs;
	strs = NULL;
	b->cap_strs = ns + 1;
	free(b->t.strings);
	b->t.strings = view;
	view = NULL;
	b->t.num_strings = nu;
	/* The intern table indexes the old order; interning is over. */
	free(b->slots);
	b->slots = NULL;
	b->nslots = 0;
	b->last_str = UINT32_MAX;

	for (size_t i = 0; i < b->t.num_syms; i++)
		b->t.syms[i].name = remap[b->t.syms[i].name];
	for (size_t i = 0; i < b->t.num_sections; i++)
		b->t.sections[i].name = remap[b->t.sections[i].name];
	for (size_t i = 0; i < b->t.num_lines; i++)
		if (b->t.lines[i].file)
			b->t.lines[i].file = remap[b->t.lines[i].file - 1] + 1;
	for (size_t d = 0; d < b->t.num_depths; d++)
		for (size_t i = 0; i < b->t.depths[d].num; i++) {
			struct trec_arc_inline *in = &b->t.depths[d].v[i];
			in->name = remap[in->name];
			if (in->call_file)
				in->call_file = remap[in->call_file - 1] + 1;
		}
	err = 0;
out:
	free(used);
	free(perm);
	free(remap);
	free(strs);
	free(view);
	return err;
}

int arc_finalize_tables(struct arc_builder *b)
{
	if (b->oom)
		return -ENOMEM;
	if ((!b->syms_final && finalize_syms(b)) || finalize_lines(b))
		return -ENOMEM;
	finalize_inlines(b);
	return 0;
}

int arc_finalize(struct arc_builder *b)
{
	int err = arc_finalize_tables(b);
	return err ? err : finalize_strings(b);
}

/* ---- restriction to sampled functions ---------------------------------------- */

struct range {
	uint64_t lo, hi;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The functions holding addrs (by treport's rule), sorted, overlaps
 * merged. An address no symbol holds keeps its own byte: treport still
 * reads its line and inlined calls. */
static size_t kept_ranges(const struct trec_arc_tables *t, const uint64_t *addrs, size_t n,
			  struct range *out)
{
	size_t k = 0, m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trec_arc_sym *s = trec_arc_symbol_holding(t, addrs[i]);
		if (s)
			out[k++] = (struct range){ s->addr, s->addr + s->size };
		else if (addrs[i] != UINT64_MAX)
			out[k++] = (struct range){ addrs[i], addrs[i] + 1 };
	}
	qsort(out, k, sizeof(*out), cmp_range);
	for (size_t i = 0; i < k; i++) {
		if (m && out[i].lo <= out[m - 1].hi) {
			if (out[i].hi > out[m - 1].hi)
				out[m - 1].hi = out[i].hi;
			continue;
		}
		out[m++] = out[i];
	}
	return m;
}

/* Line rows inside the ranges: each range starts with the row covering its
 * start and ends with a gap. */
static int restrict_lines(struct trec_arc_tables *t, const struct range *r, size_t nr)
{
	struct trec_arc_line *out = malloc((t->num_lines + 2 * nr + 1) * sizeof(*out));
	size_t m = 0, i = 0;
	if (!out)
		return -ENOMEM;
	for (size_t k = 0; k < nr; k++) {
		while (i + 1 < t->num_lines && t->lines[i + 1].addr <= r[k].lo)
			i++;
		if (i < t->num_lines && t->lines[i].addr <= r[k].lo && t->lines[i].file)
			out[m++] = (struct trec_arc_line){ r[k].lo, t->lines[i].file,
							   t->lines[i].line };
		for (; i < t->num_lines && t->lines[i].addr < r[k].hi; i++)
			if (t->lines[i].addr > r[k].lo)
				out[m++] = t->lines[i];
		if (i)
			i--; /* the next range may start inside the last row */
		if (m && out[m - 1].file)
			out[m++] = (struct trec_arc_line){ r[k].hi, 0, 0 };
	}
	free(t->lines);
	t->lines = out;
	t->num_lines = m;
	return 0;
}

static int overlaps(const struct range *r, size_t nr, uint64_t lo, uint64_t hi)
{
	size_t a = TREC_UPPER_BOUND(r, nr, hi, lo); /* first range ending after lo */
	return a < nr && r[a].lo < hi;
}

/* The symbols a sampled address can be named by: the window of
 * TREC_ARC_ENCLOSING_SCAN symbols at or below it that
 * trec_arc_symbol_holding() scans. With the whole window kept, the
 * window is the same in the smaller table, so each address gets the same
 * symbol, or none, as from all of them; the rest (most of a large
 * library's) would cost sorting, encoding and compressing for nothing. */
static int restrict_syms(struct trec_arc_tables *t, const uint64_t *addrs, size_t n)
{
	uint8_t *keep = calloc(t->num_syms + 1, 1);
	size_t m = 0;
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t u = TREC_UPPER_BOUND(t->syms, t->num_syms, addr, addrs[i]);
		for (size_t k = u; k > 0 && k + TREC_ARC_ENCLOSING_SCAN > u; k--)
			keep[k - 1] = 1;
	}
	for (size_t i = 0; i < t->num_syms; i++)
		if (keep[i])
			t->syms[m++] = t->syms[i];
	t->num_syms = m;
	free(keep);
	return 0;
}

int arc_restrict(struct arc_builder *b, const uint64_t *addrs, size_t n)
{
	struct trec_arc_tables *t = &b->t;
	struct range *r = malloc((n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	size_t nr = kept_ranges(t, addrs, n, r);
	int err = restrict_lines(t, r, nr);
	if (!err)
		err = restrict_syms(t, addrs, n);
	for (size_t d = 0; d < t->num_depths && !err; d++) {
		struct trec_arc_depth *dp = &t->depths[d];
		size_t m = 0;
		for (size_t i = 0; i < dp->num; i++)
			if (overlaps(r, nr, dp->v[i].lo, dp->v[i].hi))
				dp->v[m++] = dp->v[i];
		dp->num = m;
	}
	free(r);
	if (err)
		return err;
	finalize_inlines(b); /* drops emptied depths */
	return finalize_strings(b);
}
