// SPDX-License-Identifier: MIT
/* PYCODE blob payload; see trec_pycode.h and FORMAT.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trec_pycode.h"

/* Fixed part: pid, code_addr, object_id, firstlineno, major, minor, 2 pad. */
#define FIXED_LEN 24

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
	if (n)
		memcpy(p, v, n); /* little-endian host: x86-64, arm64 */
	return p + n;
}

static uint8_t *put_str(uint8_t *p, const void *s, uint32_t n)
{
	p = put(p, &n, 4);
	p = put(p, s, n);
	*p = 0;
	return p + 1;
}

int trec_pycode_encode(const struct trec_pycode *c, uint8_t **buf, size_t *len)
{
	const uint8_t pad[2] = { 0, 0 };
	size_t n;
	uint8_t *b, *p;

	if (c->filename_len > TREC_PYCODE_MAX_STR || c->name_len > TREC_PYCODE_MAX_STR ||
	    c->qualname_len > TREC_PYCODE_MAX_STR || c->linetable_len > TREC_PYCODE_MAX_LINETABLE)
		return -EINVAL;
	n = FIXED_LEN + 4 * 5 + c->filename_len + c->name_len + c->qualname_len + 3 +
	    c->linetable_len;
	b = malloc(n);
	if (!b)
		return -ENOMEM;
	p = put(b, &c->pid, 4);
	p = put(p, &c->code_addr, 8);
	p = put(p, &c->object_id, 4);
	p = put(p, &c->firstlineno, 4);
	p = put(p, &c->py_major, 1);
	p = put(p, &c->py_minor, 1);
	p = put(p, pad, 2);
	p = put_str(p, c->filename, c->filename_len);
	p = put_str(p, c->name, c->name_len);
	p = put_str(p, c->qualname, c->qualname_len);
	p = put(p, &c->linetable_len, 4);
	p = put(p, c->linetable, c->linetable_len);
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
	if (take(c, n, 4) || *n > TREC_PYCODE_MAX_STR || c->left < (size_t)*n + 1 ||
	    c->p[*n] != 0 || memchr(c->p, 0, *n))
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += *n + 1;
	c->left -= *n + 1;
	return 0;
}

int trec_pycode_decode(const uint8_t *data, size_t len, struct trec_pycode *out)
{
	struct cursor c = { data, len };
	uint8_t pad[2];

	memset(out, 0, sizeof(*out));
	if (take(&c, &out->pid, 4) || take(&c, &out->code_addr, 8) ||
	    take(&c, &out->object_id, 4) || take(&c, &out->firstlineno, 4) ||
	    take(&c, &out->py_major, 1) || take(&c, &out->py_minor, 1) || take(&c, pad, 2) ||
	    take_str(&c, &out->filename, &out->filename_len) ||
	    take_str(&c, &out->name, &out->name_len) ||
	    take_str(&c, &out->qualname, &out->qualname_len) ||
	    take(&c, &out->linetable_len, 4) || out->linetable_len > TREC_PYCODE_MAX_LINETABLE ||
	    c.left != out->linetable_len)
		return -EBADMSG;
	out->linetable = c.p;
	return 0;
}
