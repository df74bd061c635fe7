// SPDX-License-Identifier: MIT
/*
 * Row lists: growable arrays of (range, rule), their normalization (sorted,
 * no overlaps) and priority painting of one list over another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/unwind/ehframe.h"

int trec_rows_push(struct trec_rows *r, const struct trec_row *row)
{
	if (TREC_GROW(r->v, r->cap, r->n + 1, 256))
		return -ENOMEM;
	r->v[r->n++] = *row;
	return 0;
}

void trec_rows_free(struct trec_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

bool trec_row_same_rule(const struct trec_row *a, const struct trec_row *b)
{
	return a->command == b->command &&
	       (a->command || memcmp(&a->info, &b->info, sizeof(a->info)) == 0);
}

static int cmp_start(const void *pa, const void *pb)
{
	const struct trec_row *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Stable order for equal starts: the earlier pushed row wins. */
	return a < b ? -1 : a > b;
}

void trec_rows_normalize(struct trec_rows *r)
{
	if (r->n == 0)
		return;
	/* CFI sections are nearly always sorted already; check before sorting. */
	bool sorted = true;
	for (size_t i = 1; i < r->n && sorted; i++)
		sorted = r->v[i - 1].start <= r->v[i].start;
	if (!sorted)
		qsort(r->v, r->n, sizeof(r->v[0]), cmp_start);

	size_t out = 0;
	uint64_t covered = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct trec_row row = r->v[i];
		if (out && row.start < covered) {
			if (row.end <= covered)
				continue; /* fully behind an earlier row (overlapping FDEs) */
			row.start = covered;
		}
		r->v[out++] = row;
		covered = row.end;
	}
	r->n = out;
}

int trec_rows_paint(const struct trec_rows *hi, const struct trec_rows *lo,
		    struct trec_rows *out)
{
	size_t i = 0;
	out->n = 0;
	/* Both lists are sorted and disjoint; a low row keeps only the parts no
	 * high row covers, and the output stays sorted. */
	for (size_t j = 0; j < lo->n; j++) {
		const struct trec_row *l = &lo->v[j];
		uint64_t s = l->start;
		while (s < l->end) {
			while (i < hi->n && hi->v[i].end <= s)
				if (trec_rows_push(out, &hi->v[i++]))
					return -ENOMEM;
			if (i < hi->n && hi->v[i].start <= s) {
				s = hi->v[i].end; /* s is inside a high row */
				if (trec_rows_push(out, &hi->v[i++]))
					return -ENOMEM;
				continue;
			}
			struct trec_row piece = *l;
			piece.start = s;
			if (i < hi->n && hi->v[i].start < l->end)
				piece.end = hi->v[i].start;
			if (trec_rows_push(out, &piece))
				return -ENOMEM;
			s = piece.end;
		}
	}
	while (i < hi->n)
		if (trec_rows_push(out, &hi->v[i++]))
			return -ENOMEM;
	return 0;
}
