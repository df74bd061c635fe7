/* SPDX-License-Identifier: MIT */
/*
 * Payload of INTERP_CODE blob records of subtype 3: what trecord read from
 * a live Ruby (MRI) process about one instruction sequence (a method,
 * block, class body or script), so that treport names Ruby frames and
 * turns their instruction position into a line. Byte layout: FORMAT.md
 * §12.2.
 */
#ifndef TREC_RBCODE_H
#define TREC_RBCODE_H

#include <stddef.h>
#include <stdint.h>

/* trec_blob.subtype of the layout below (FORMAT.md §12). */
#define TREC_RBCODE_SUBTYPE 3

/* Limits the decoder enforces (and the encoder refuses to exceed). */
#define TREC_RBCODE_MAX_STR 4096
#define TREC_RBCODE_MAX_LINES (1u << 20)

/* One row of the line table: from instruction position pos on (in VALUE
 * words from the first instruction), the code is on line. */
struct trec_rbcode_line {
	uint32_t pos;
	int32_t line;
};

struct trec_rbcode {
	uint32_t pid;
	uint64_t iseq_addr;   /* the frame's file_id */
	uint32_t object_id;   /* trec_rb_object_id() of what was read */
	int32_t first_lineno;
	uint8_t rb_major, rb_minor;
	/* NUL-terminated; from decode they point into the payload. */
	const char *label, *path;
	uint32_t label_len, path_len;
	/* Rows by increasing pos. From decode: unaligned, read with
	 * trec_rbcode_line_at(). */
	const void *lines;
	uint32_t num_lines;
};

/* Serializes c into a malloc'ed buffer. 0 or -EINVAL / -ENOMEM. */
int trec_rbcode_encode(const struct trec_rbcode *c, uint8_t **buf, size_t *len);
/* Parses a payload (hostile input; rows must increase). 0 or -EBADMSG. */
int trec_rbcode_decode(const uint8_t *data, size_t len, struct trec_rbcode *out);
/* Row i of a decoded table. */
struct trec_rbcode_line trec_rbcode_line_at(const struct trec_rbcode *c, uint32_t i);
/* Line of the frame at word position pos (the frame's pc, which points
 * past the instruction running): the row of the instruction before pc.
 * pos ~0 (not started) gives first_lineno; -1 when no row covers it. */
int32_t trec_rbcode_line_of(const struct trec_rbcode *c, uint32_t pos);

#endif /* TREC_RBCODE_H */
