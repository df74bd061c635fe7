// SPDX-License-Identifier: MIT
/* Ruby INTERP_CODE payload; see trec_rbcode.h and FORMAT.md §12.2. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trec_rbcode.h"

/* Fixed part: pid, iseq_addr, object_id, first_lineno, major, minor, 2 pad. */
#define FIXED_LEN 24
#define ROW_LEN 8

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
	if (n)
		memcpy(p, v, n); /* little-endian host: x86-64, arm64 */
	return p + n;
}

static uint8_t *put_str(uint8_t *p, const char *s, uint32_t n)
{
	p = put(p, &n, 4);
	p = put(p, s, n);
	*p = 0;
	return p + 1;
}

int trec_rbcode_encode(const struct trec_rbcode *c, uint8_t **buf, size_t *len)
{
	const struct trec_rbcode_line *rows = c->lines;
	const uint8_t pad[2] = { 0, 0 };
	uint8_t *b, *p;
	size_t n;

	if (c->label_len > TREC_RBCODE_MAX_STR || c->path_len > TREC_RBCODE_MAX_STR ||
	    c->num_lines > TREC_RBCODE_MAX_LINES || memchr(c->label, 0, c->label_len) ||
	    memchr(c->path, 0, c->path_len))
		return -EINVAL;
	for (uint32_t i = 1; i < c->num_lines; i++)
		if (rows[i].pos <= rows[i - 1].pos)
			return -EINVAL;
	n = FIXED_LEN + 4 + c->label_len + 1 + 4 + c->path_len + 1 + 4 +
	    (size_t)c->num_lines * ROW_LEN;
	b = malloc(n);
	if (!b)
		return -ENOMEM;
	p = put(b, &c->pid, 4);
	p = put(p, &c->iseq_addr, 8);
	p = put(p, &c->object_id, 4);
	p = put(p, &c->first_lineno, 4);
	p = put(p, &c->rb_major, 1);
	p = put(p, &c->rb_minor, 1);
	p = put(p, pad, 2);
	p = put_str(p, c->label, c->label_len);
	p = put_str(p, c->path, c->path_len);
	p = put(p, &c->num_lines, 4);
	for (uint32_t i = 0; i < c->num_lines; i++) {
		p = put(p, &rows[i].pos, 4);
		p = put(p, &rows[i].line, 4);
	}
	*buf = b;
	*len = (size_t)(p - b);
	return 0;
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static int take(struct cursor *c, void *v, size_t n)
{
	if (c->left < n)
		return -EBADMSG;
	memcpy(v, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

/* A u32 length, the bytes, a NUL; no NUL inside. */
static int take_str(struct cursor *c, const char **s, uint32_t *n)
{
	if (take(c, n, 4) || *n > TREC_RBCODE_MAX_STR || c->left < (size_t)*n + 1 ||
	    c->p[*n] != 0 || memchr(c->p, 0, *n))
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += *n + 1;
	c->left -= *n + 1;
	return 0;
}

struct trec_rbcode_line trec_rbcode_line_at(const struct trec_rbcode *c, uint32_t i)
{
	const uint8_t *p = (const uint8_t *)c->lines + (size_t)i * ROW_LEN;
	struct trec_rbcode_line r;

	memcpy(&r.pos, p, 4);
	memcpy(&r.line, p + 4, 4);
	return r;
}

int trec_rbcode_decode(const uint8_t *data, size_t len, struct trec_rbcode *out)
{
	struct cursor c = { data, len };
	uint8_t pad[2];

	memset(out, 0, sizeof(*out));
	if (take(&c, &out->pid, 4) || take(&c, &out->iseq_addr, 8) ||
	    take(&c, &out->object_id, 4) || take(&c, &out->first_lineno, 4) ||
	    take(&c, &out->rb_major, 1) || take(&c, &out->rb_minor, 1) || take(&c, pad, 2) || pad[0] || pad[1] ||
	    take_str(&c, &out->label, &out->label_len) || take_str(&c, &out->path, &out->path_len) ||
	    take(&c, &out->num_lines, 4) || out->num_lines > TREC_RBCODE_MAX_LINES ||
	    c.left != (size_t)out->num_lines * ROW_LEN)
		return -EBADMSG;
	out->lines = c.p;
	for (uint32_t i = 1; i < out->num_lines; i++)
		if (trec_rbcode_line_at(out, i).pos <= trec_rbcode_line_at(out, i - 1).pos)
			return -EBADMSG;
	return 0;
}

int32_t trec_rbcode_line_of(const struct trec_rbcode *c, uint32_t pos)
{
	uint32_t lo = 0, hi = c->num_lines;

	if (pos == UINT32_MAX)
		return c->first_lineno;
	/* As MRI's calc_pos: pc is past the running instruction. */
	if (pos > 0)
		pos--;
	/* The last row with row.pos <= pos. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (trec_rbcode_line_at(c, mid).pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? trec_rbcode_line_at(c, lo - 1).line : -1;
}
