// SPDX-License-Identifier: MIT
/* Perl INTERP_CODE payload; see trec_perlcode.h and FORMAT.md §12.1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trec_perlcode.h"

/* Fixed part: pid, cop_addr, key, line, reserved. */
#define FIXED_LEN 28

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

static int str_ok(const char *s, uint32_t n)
{
	return n <= TREC_PERLCODE_MAX_STR && (n == 0 || (s && !memchr(s, 0, n)));
}

int trec_perlcode_encode(const struct trec_perlcode *c, uint8_t **buf, size_t *len)
{
	const uint32_t reserved = 0;
	size_t n;
	uint8_t *b, *p;

	if (!str_ok(c->package, c->package_len) || !str_ok(c->name, c->name_len) ||
	    !str_ok(c->file, c->file_len))
		return -EINVAL;
	n = FIXED_LEN + 3 * 5 + (size_t)c->package_len + c->name_len + c->file_len;
	b = malloc(n);
	if (!b)
		return -ENOMEM;
	p = put(b, &c->pid, 4);
	p = put(p, &c->cop_addr, 8);
	p = put(p, &c->key, 8);
	p = put(p, &c->line, 4);
	p = put(p, &reserved, 4);
	p = put_str(p, c->package, c->package_len);
	p = put_str(p, c->name, c->name_len);
	p = put_str(p, c->file, c->file_len);
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
	if (take(c, n, 4) || *n > TREC_PERLCODE_MAX_STR || c->left < (size_t)*n + 1 ||
	    c->p[*n] != 0 || memchr(c->p, 0, *n))
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += *n + 1;
	c->left -= *n + 1;
	return 0;
}

int trec_perlcode_decode(const uint8_t *data, size_t len, struct trec_perlcode *out)
{
	struct cursor c = { data, len };
	uint32_t reserved;

	memset(out, 0, sizeof(*out));
	if (!data && len)
		return -EBADMSG;
	if (take(&c, &out->pid, 4) || take(&c, &out->cop_addr, 8) || take(&c, &out->key, 8) ||
	    take(&c, &out->line, 4) || take(&c, &reserved, 4) || reserved != 0 ||
	    take_str(&c, &out->package, &out->package_len) ||
	    take_str(&c, &out->name, &out->name_len) ||
	    take_str(&c, &out->file, &out->file_len) || c.left != 0)
		return -EBADMSG;
	return 0;
}
