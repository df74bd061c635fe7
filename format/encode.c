// SPDX-License-Identifier: MIT
/* Varints, zigzag, length-prefixed bytes: writer buffer and reader cursor. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"

/* Marks the cursor bad, keeping an earlier, more specific error (-ENOMEM). */
static void cur_fail(struct trec_cur *c)
{
	if (!c->bad)
		c->bad = 1;
}

void trec_buf_free(struct trec_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

int trec_buf_reserve(struct trec_buf *b, size_t n)
{
	if (b->oom)
		return -ENOMEM;
	if (n <= b->cap - b->len)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			goto oom;
		cap *= 2;
	}
	uint8_t *d = realloc(b->data, cap);
	if (!d)
		goto oom;
	b->data = d;
	b->cap = cap;
	return 0;
oom:
	b->oom = 1;
	return -ENOMEM;
}

void trec_buf_put(struct trec_buf *b, const void *p, size_t n)
{
	if (!n || trec_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

size_t trec_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void trec_buf_bytes(struct trec_buf *b, const void *p, size_t n)
{
	trec_buf_varint(b, n);
	trec_buf_put(b, p, n);
}

void trec_buf_str(struct trec_buf *b, const char *s)
{
	trec_buf_bytes(b, s, s ? strlen(s) : 0);
}

uint8_t trec_cur_u8_slow(struct trec_cur *c)
{
	if (c->bad || c->p >= c->end) {
		cur_fail(c);
		return 0;
	}
	return *c->p++;
}

uint64_t trec_cur_varint_slow(struct trec_cur *c)
{
	const uint8_t *p = c->p;
	size_t left = trec_cur_left(c), max = left < 10 ? left : 10;
	uint64_t v = 0;

	for (size_t i = 0; i < max && !c->bad; i++) {
		uint8_t byte = p[i];

		/* The 10th byte may only carry bit 63. */
		if (i == 9 && byte > 1)
			break;
		v |= (uint64_t)(byte & 0x7f) << (7 * i);
		if (!(byte & 0x80)) {
			c->p = p + i + 1;
			return v;
		}
	}
	cur_fail(c);
	return 0;
}

uint32_t trec_cur_varint32(struct trec_cur *c)
{
	uint64_t v = trec_cur_varint(c);

	if (v > UINT32_MAX) {
		cur_fail(c);
		return 0;
	}
	return (uint32_t)v;
}

int64_t trec_cur_zigzag(struct trec_cur *c)
{
	return trec_zigzag_dec(trec_cur_varint(c));
}

const uint8_t *trec_cur_bytes(struct trec_cur *c, uint32_t max, uint32_t *len)
{
	uint64_t n = trec_cur_varint(c);

	*len = 0;
	if (c->bad || n > max || n > trec_cur_left(c)) {
		cur_fail(c);
		return NULL;
	}
	const uint8_t *p = c->p;
	c->p += n;
	*len = (uint32_t)n;
	return p;
}

uint32_t trec_cur_count(struct trec_cur *c, size_t min_size)
{
	uint32_t n = trec_cur_varint32(c);

	if (c->bad || (uint64_t)n * min_size > trec_cur_left(c)) {
		cur_fail(c);
		return 0;
	}
	return n;
}
