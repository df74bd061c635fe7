/* SPDX-License-Identifier: MIT */
/*
 * Record payload codecs (FORMAT.md §4, §6). Encoders append one payload
 * (without the type/length framing) to a buffer and validate the limits of
 * §7; decoders parse one payload into a struct trec_record whose arrays and
 * strings live in a caller-provided scratch area.
 */
#ifndef TREC_RECORDS_H
#define TREC_RECORDS_H

#include "encode.h"
#include "format_internal.h"

/* ---- encoders: 0 or -EINVAL (a limit exceeded) / -ENOMEM ---------------- */

int trec_enc_meta(struct trec_buf *b, const struct trec_meta *m);
int trec_enc_mappings(struct trec_buf *b, const struct trec_mapping_snapshot *m);
int trec_enc_pid_event(struct trec_buf *b, const struct trec_pid_event *e);
int trec_enc_file(struct trec_buf *b, const struct trec_file_info *f);
int trec_enc_ksyms(struct trec_buf *b, const struct trec_ksyms *k);
int trec_enc_metrics(struct trec_buf *b, const struct trec_metrics *m);
int trec_enc_summary(struct trec_buf *b, const struct trec_summary *s);
int trec_enc_blob(struct trec_buf *b, const struct trec_blob *bl);
int trec_enc_jitsyms(struct trec_buf *b, const struct trec_jitsyms *j);
/* Stack table entry: both frame lists of a sample. */
int trec_enc_stack(struct trec_buf *b, const struct trec_sample *s);
/* Thread table entry: pid, tid, comm. */
int trec_enc_thread(struct trec_buf *b, const struct trec_sample *s);
void trec_enc_sample(struct trec_buf *b, const struct trec_sample *s, uint64_t prev_time,
		     uint32_t thread_idx, uint32_t stack_idx);

/* ---- decoders ---------------------------------------------------------- */

/*
 * Scratch memory for one decoded record: grown as needed, reused for the
 * next record. Pointers handed out stay valid until the next decode.
 */
struct trec_scratch {
	struct trec_buf arr;  /* the record's array (mappings, syms, ...) */
	struct trec_buf strs; /* NUL-terminated copies of its strings */
	struct trec_rec_frame *frames;
	size_t frames_cap;
};

void trec_scratch_free(struct trec_scratch *s);

/* A chunk's stack and thread tables: offsets of entry payloads in the body. */
struct trec_chunk_tables {
	struct trec_buf stacks;  /* uint32_t offset, uint32_t len pairs */
	struct trec_buf threads; /* same */
	uint32_t nstacks, nthreads;
	uint64_t prev_time;      /* time of the previous SAMPLE in the chunk */
};

/* Each returns 0 or -EBADMSG (malformed payload) / -ENOMEM. */
int trec_dec_record(uint32_t type, const uint8_t *body, const uint8_t *payload, uint32_t len,
		    struct trec_chunk_tables *t, struct trec_scratch *s, struct trec_record *rec);

#endif /* TREC_RECORDS_H */
