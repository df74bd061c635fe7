/* SPDX-License-Identifier: MIT */
/*
 * Byte-level encoding of record payloads (FORMAT.md §4): a growable output
 * buffer for the writer and a bounds-checked input cursor for the reader.
 *
 * The cursor's error is sticky: after the first out-of-bounds or malformed
 * read every getter returns 0 and cur->bad stays set, so a decoder can read
 * all fields and check once at the end without ever touching memory past
 * the end of its input.
 */
#ifndef TREC_ENCODE_H
#define TREC_ENCODE_H

#include <stddef.h>
#include <stdint.h>

struct trec_buf {
	uint8_t *data;
	size_t len, cap;
	int oom; /* sticky: an allocation failed, contents are incomplete */
};

void trec_buf_free(struct trec_buf *b);
/* Makes room for n more bytes; 0 or -ENOMEM (also sets b->oom). */
int trec_buf_reserve(struct trec_buf *b, size_t n);
void trec_buf_put(struct trec_buf *b, const void *p, size_t n);
/* varint length + bytes; s may be NULL (empty). */
void trec_buf_bytes(struct trec_buf *b, const void *p, size_t n);
void trec_buf_str(struct trec_buf *b, const char *s);

/* Bytes of the varint encoding of v (1..10). */
size_t trec_varint_len(uint64_t v);

/* Encodes v at p (room for 10 bytes); returns bytes written. */
static inline size_t trec_varint_encode(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline uint64_t trec_zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t trec_zigzag_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The per-field appenders are inline: a stack is ~100 of them per sample. */
static inline void trec_buf_u8(struct trec_buf *b, uint8_t v)
{
	if (b->cap - b->len >= 1 || !trec_buf_reserve(b, 1))
		b->data[b->len++] = v;
}

static inline void trec_buf_varint(struct trec_buf *b, uint64_t v)
{
	if (b->cap - b->len >= 10 || !trec_buf_reserve(b, 10))
		b->len += trec_varint_encode(b->data + b->len, v);
}

/* A run of varint fields, in order: TREC_BUF_VARINTS(b, x->a, x->b, ...). */
static inline void trec_buf_varints(struct trec_buf *b, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		trec_buf_varint(b, v[i]);
}
#define TREC_BUF_VARINTS(b, ...)                                               \
	trec_buf_varints((b), (const uint64_t[]){ __VA_ARGS__ },                \
			 sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static inline void trec_buf_zigzag(struct trec_buf *b, int64_t v)
{
	trec_buf_varint(b, trec_zigzag_enc(v));
}

struct trec_cur {
	const uint8_t *p, *end;
	int bad;
};

static inline size_t trec_cur_left(const struct trec_cur *c)
{
	return (size_t)(c->end - c->p);
}

uint8_t trec_cur_u8_slow(struct trec_cur *c);
uint64_t trec_cur_varint_slow(struct trec_cur *c);

/* Fast paths inline (one-byte values are most fields); the rest in encode.c. */
static inline uint8_t trec_cur_u8(struct trec_cur *c)
{
	if (!c->bad && c->p < c->end)
		return *c->p++;
	return trec_cur_u8_slow(c);
}

static inline uint64_t trec_cur_varint(struct trec_cur *c)
{
	if (!c->bad && c->p < c->end && *c->p < 0x80)
		return *c->p++;
	return trec_cur_varint_slow(c);
}

/* A varint that must fit 32 bits. */
uint32_t trec_cur_varint32(struct trec_cur *c);
int64_t trec_cur_zigzag(struct trec_cur *c);
/* A length-prefixed byte string of at most max bytes; *len set, pointer
 * into the input (NULL when bad). */
const uint8_t *trec_cur_bytes(struct trec_cur *c, uint32_t max, uint32_t *len);
/* A count of elements each taking at least min_size bytes: refused if the
 * rest of the input could not hold that many (bounds every allocation by
 * the input size). */
uint32_t trec_cur_count(struct trec_cur *c, size_t min_size);

#endif /* TREC_ENCODE_H */
