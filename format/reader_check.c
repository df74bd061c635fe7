// SPDX-License-Identifier: MIT
/* Chunk sequence bookkeeping and header sanity for the reader. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/containers/vec.h"
#include "reader_check.h"

/* Past this many ranges the file is hostile, not damaged: stop checking
 * rather than let the set grow with the file. */
#define SEQ_MAX_RANGES 65536

/* Index of the first range with hi >= seq (where seq is, or would go). */
static size_t find(const struct trec_seq_set *s, uint64_t seq)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].hi < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds seq (not yet in the set), merging with its neighbours. */
static int add(struct trec_seq_set *s, uint64_t seq)
{
	size_t i = find(s, seq);

	if (i < s->n && s->r[i].hi == seq) {
		s->r[i].hi++;
		if (i + 1 < s->n && s->r[i + 1].lo == s->r[i].hi) {
			s->r[i].hi = s->r[i + 1].hi;
			memmove(&s->r[i + 1], &s->r[i + 2], (s->n - i - 2) * sizeof(*s->r));
			s->n--;
		}
		return 0;
	}
	if (i < s->n && s->r[i].lo == seq + 1) {
		s->r[i].lo--;
		return 0;
	}
	if (s->n >= SEQ_MAX_RANGES || TREC_GROW(s->r, s->cap, s->n + 1, 4))
		return -1;
	memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
	s->r[i] = (struct trec_seq_range){ seq, seq + 1 };
	s->n++;
	return 0;
}

enum trec_seq_verdict trec_seq_note(struct trec_seq_set *s, uint32_t seq)
{
	enum trec_seq_verdict v;
	size_t i;

	if (s->gave_up)
		return TREC_SEQ_UNCHECKED;
	if (seq == s->next)
		v = TREC_SEQ_IN_ORDER;
	else if (seq > s->next)
		v = TREC_SEQ_GAP;
	else if ((i = find(s, seq)) < s->n && s->r[i].lo <= seq && seq < s->r[i].hi)
		return TREC_SEQ_DUP;
	else
		v = TREC_SEQ_LATE;
	if (add(s, seq)) {
		s->gave_up = 1;
		return TREC_SEQ_UNCHECKED;
	}
	s->seen++;
	if (seq >= s->next)
		s->next = (uint64_t)seq + 1;
	return v;
}

uint64_t trec_seq_missing(const struct trec_seq_set *s)
{
	return s->next - s->seen;
}

void trec_seq_free(struct trec_seq_set *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

unsigned trec_header_unknown_fields(uint32_t clock_id, uint32_t page_size)
{
	unsigned bad = 0;

	/* 1.0 defines one clock; samples on another could not be put beside
	 * the pid events' times. */
	if (clock_id != CLOCK_MONOTONIC)
		bad |= TREC_HDR_BAD_CLOCK;
	/* Linux page sizes are powers of two, 4 KiB to 1 MiB in practice. */
	if (page_size < 1024 || page_size > (1u << 30) || (page_size & (page_size - 1)))
		bad |= TREC_HDR_BAD_PAGE_SIZE;
	return bad;
}
