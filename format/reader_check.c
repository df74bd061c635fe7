// SPDX-License-Identifier: MIT
/* The reader's checks beyond the CRCs: chunk sequence, SUMMARY, header. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/containers/vec.h"
#include "reader_check.h"
#include "trec_format.h"

/* Past this many ranges the file is hostile, not damaged: stop checking
 * rather than let the set grow with the file. */
#define SEQ_MAX_RANGES 65536
/* Damage warnings one by one up to this many; the counts at the end. */
#define SEQ_WARN_MAX 8

static void warnf(struct trec_read_checks *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warnf(struct trec_read_checks *k, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	k->warn(k->warn_ctx, msg);
}

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

/* ---- what the reader calls ------------------------------------------------ */

/* Notes the chunk's sequence number; 1 if the chunk is a duplicate to skip. */
int trec_check_chunk(struct trec_read_checks *k, struct trec_reader_stats *st, uint64_t off,
		     uint32_t seq)
{
	uint64_t expected = k->seq.next;
	enum trec_seq_verdict v = trec_seq_note(&k->seq, seq);
	int say = v != TREC_SEQ_IN_ORDER && v != TREC_SEQ_UNCHECKED &&
		  k->seq_warnings++ < SEQ_WARN_MAX;

	if (v == TREC_SEQ_DUP) {
		st->seq_duplicates++;
		if (say)
			warnf(k, "chunk at offset %llu repeats sequence number %u: skipping the duplicate",
			      (unsigned long long)off, seq);
		return 1;
	}
	if (v == TREC_SEQ_GAP && say)
		warnf(k, "chunk at offset %llu has sequence number %u, expected %llu: "
		      "%llu chunk(s) missing before it", (unsigned long long)off, seq,
		      (unsigned long long)expected, (unsigned long long)(seq - expected));
	if (v == TREC_SEQ_LATE) {
		st->seq_reordered++;
		if (say)
			warnf(k, "chunk at offset %llu has sequence number %u after %llu: out of order",
			      (unsigned long long)off, seq, (unsigned long long)(expected - 1));
	}
	if (v == TREC_SEQ_UNCHECKED && k->seq.gave_up == 1) {
		k->seq.gave_up = 2;
		warnf(k, "too many chunks out of sequence order: no longer checking the order");
	}
	return 0;
}

/* At the end of the file: what the sequence and the SUMMARY say is lost. */
void trec_check_end(struct trec_read_checks *k, struct trec_reader_stats *st)
{
	if (k->checked_end)
		return;
	k->checked_end = 1;
	st->seq_missing = trec_seq_missing(&k->seq);
	if (st->seq_missing || st->seq_duplicates || st->seq_reordered)
		warnf(k, "chunk sequence: %llu chunk(s) missing, %llu duplicate(s) skipped, "
		      "%llu out of order", (unsigned long long)st->seq_missing,
		      (unsigned long long)st->seq_duplicates, (unsigned long long)st->seq_reordered);
	if (st->summaries && st->samples != st->summary_samples)
		warnf(k, "the SUMMARY record counts %llu samples, the file holds %llu (%llu %s)",
		      (unsigned long long)st->summary_samples, (unsigned long long)st->samples,
		      (unsigned long long)(st->samples < st->summary_samples
						   ? st->summary_samples - st->samples
						   : st->samples - st->summary_samples),
		      st->samples < st->summary_samples ? "missing" : "more than written");
}

/* Counts SAMPLE records and keeps the first SUMMARY's count. */
void trec_check_record(struct trec_read_checks *k, struct trec_reader_stats *st,
		       const struct trec_record *rec)
{
	if (rec->type == TREC_REC_SAMPLE) {
		st->samples++;
	} else if (rec->type == TREC_REC_SUMMARY) {
		if (!st->summaries++) {
			st->summary_samples = rec->u.summary.samples;
			k->summary_off = rec->file_offset;
		} else if (st->summaries <= SEQ_WARN_MAX) {
			warnf(k, "another SUMMARY record in the chunk at offset %llu (the first is in "
			      "the chunk at offset %llu): more than one recording's end",
			      (unsigned long long)rec->file_offset, (unsigned long long)k->summary_off);
		}
	}
}
