/* SPDX-License-Identifier: MIT */
/*
 * The reader's consistency checks beyond the CRCs (FORMAT.md §8, "Chunk
 * sequence and SUMMARY"): every chunk can be intact while the file is
 * not — a chunk duplicated, dropped or moved, a file appended to itself.
 * The chunk sequence numbers and the SUMMARY record's sample count tell.
 * Not part of the public API.
 */
#ifndef TREC_READER_CHECK_H
#define TREC_READER_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Sequence numbers seen so far, as sorted disjoint [lo, hi) ranges: one
 * range for an intact file, a few for a damaged one. */
struct trec_seq_range {
	uint64_t lo, hi;
};

struct trec_seq_set {
	struct trec_seq_range *r;
	size_t n, cap;
	uint64_t next;    /* highest sequence seen + 1 */
	uint64_t seen;    /* distinct sequences seen */
	int gave_up;      /* too many ranges (a hostile file): no more checks */
};

enum trec_seq_verdict {
	TREC_SEQ_IN_ORDER, /* the next one, as expected */
	TREC_SEQ_GAP,      /* later than expected: chunks before it missing */
	TREC_SEQ_DUP,      /* seen before: a duplicate */
	TREC_SEQ_LATE,     /* earlier than expected but new: out of order */
	TREC_SEQ_UNCHECKED,
};

/* Notes seq (unless a duplicate) and says what it was. */
enum trec_seq_verdict trec_seq_note(struct trec_seq_set *s, uint32_t seq);
/* Sequences below the highest seen that never came. */
uint64_t trec_seq_missing(const struct trec_seq_set *s);
void trec_seq_free(struct trec_seq_set *s);

/* The reader's part: its warnings go through warn(warn_ctx, msg). */
struct trec_read_checks {
	struct trec_seq_set seq;
	unsigned seq_warnings;
	uint64_t summary_off;
	int checked_end;
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct trec_reader_stats;
struct trec_record;

/* A chunk header was accepted: notes its sequence number and warns about
 * damage. 1 if the chunk is a duplicate, to be skipped. */
int trec_check_chunk(struct trec_read_checks *k, struct trec_reader_stats *st, uint64_t off,
		     uint32_t seq);
/* Each record returned: counts samples, notes SUMMARY records. */
void trec_check_record(struct trec_read_checks *k, struct trec_reader_stats *st,
		       const struct trec_record *rec);
/* End of file (once): the counts of the damage found, the SUMMARY check. */
void trec_check_end(struct trec_read_checks *k, struct trec_reader_stats *st);

/* Header fields a 1.0 reader does not know how to read: a bit per field. */
enum {
	TREC_HDR_BAD_CLOCK = 1,
	TREC_HDR_BAD_PAGE_SIZE = 2,
};
unsigned trec_header_unknown_fields(uint32_t clock_id, uint32_t page_size);

/* reader_input.c: copies a stream (pipe, socket) to an unlinked temporary
 * file and returns its fd at offset 0, or a negative errno with msg. It
 * stops early on input that does not start like a recording. */
int trec_spool_stream(int fd, char *msg, size_t msglen);

#endif /* TREC_READER_CHECK_H */
