// SPDX-License-Identifier: MIT
/* vaddr -> symbol, line and inline chain, by binary search in the tables. */
#include <string.h>

#include "format/archive/archive_reader.h"
#include "format/archive/archive_internal.h"
#include "upper_bound.h"

/* Index of the last element with key <= addr, or -1. */
#define LAST_LE(arr, n, field, addr) ((long)TREC_UPPER_BOUND(arr, n, field, addr) - 1)

const struct trec_arc_sym *trec_archive_symbol(const struct trec_archive *a, uint64_t vaddr,
					       uint64_t *offset)
{
	const struct trec_arc_sym *s = trec_arc_symbol_holding(&a->t, vaddr);
	if (s)
		*offset = vaddr - s->addr;
	return s;
}

static const struct trec_arc_line *line_at(const struct trec_arc_tables *t, uint64_t vaddr)
{
	long i = LAST_LE(t->lines, t->num_lines, addr, vaddr);
	return i >= 0 && t->lines[i].file ? &t->lines[i] : NULL;
}

static const struct trec_arc_inline *inline_at(const struct trec_arc_depth *d,
					       uint64_t vaddr)
{
	long i = LAST_LE(d->v, d->num, lo, vaddr);
	return i >= 0 && vaddr < d->v[i].hi ? &d->v[i] : NULL;
}

static const char *file_name(const struct trec_arc_tables *t, uint32_t file)
{
	return file && file <= t->num_strings ? t->strings[file - 1] : NULL;
}

int trec_archive_lookup(const struct trec_archive *a, uint64_t vaddr,
			struct trec_arc_result *r)
{
	const struct trec_arc_tables *t = &a->t;
	const struct trec_arc_inline *chain[TREC_ARC_MAX_DEPTH];
	unsigned k = 0;

	memset(r, 0, sizeof(*r));
	const struct trec_arc_sym *s = trec_archive_symbol(a, vaddr, &r->offset);
	if (s) {
		r->symbol = t->strings[s->name];
		r->sym_addr = s->addr;
	}
	/* Depth d+1 can only hold the address if depth d does. */
	while (k < t->num_depths && k < TREC_ARC_MAX_DEPTH &&
	       (chain[k] = inline_at(&t->depths[k], vaddr)))
		k++;

	const struct trec_arc_line *l = line_at(t, vaddr);
	r->num_frames = k + 1;
	r->frames[0].function = k ? t->strings[chain[k - 1]->name] : r->symbol;
	r->frames[0].file = l ? file_name(t, l->file) : NULL;
	r->frames[0].line = l ? l->line : 0;
	for (unsigned j = 1; j <= k; j++) {
		const struct trec_arc_inline *callee = chain[k - j];
		struct trec_arc_frame *f = &r->frames[j];
		f->function = k - j ? t->strings[chain[k - j - 1]->name] : r->symbol;
		f->file = file_name(t, callee->call_file);
		f->line = callee->call_line;
	}
	return s || l || k;
}
