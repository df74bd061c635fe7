/* SPDX-License-Identifier: MIT */
/*
 * Fixed-size little-endian fields of the interpreter description payloads
 * (PYCODE, INTERP_CODE: trec_pycode.c, trec_perlcode.c): writing into a
 * buffer sized beforehand, and reading hostile bytes with a bound on every
 * length. A string is a u32 length, the bytes, a NUL, no NUL inside.
 */
#ifndef TREC_PAYLOAD_FIELDS_H
#define TREC_PAYLOAD_FIELDS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint8_t *trec_pf_put(uint8_t *p, const void *v, size_t n)
{
	if (n)
		memcpy(p, v, n); /* little-endian host: x86-64, arm64 */
	return p + n;
}

static inline uint8_t *trec_pf_put_str(uint8_t *p, const void *s, uint32_t n)
{
	p = trec_pf_put(p, &n, 4);
	p = trec_pf_put(p, s, n);
	*p = 0;
	return p + 1;
}

struct trec_pf_cursor {
	const uint8_t *p;
	size_t left;
};

static inline int trec_pf_take(struct trec_pf_cursor *c, void *v, size_t n)
{
	if (c->left < n)
		return -EBADMSG;
	memcpy(v, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

/* A string of at most max bytes; *s points into the payload. */
static inline int trec_pf_take_str(struct trec_pf_cursor *c, const char **s, uint32_t *n,
				   uint32_t max)
{
	if (trec_pf_take(c, n, 4) || *n > max || c->left < (size_t)*n + 1 || c->p[*n] != 0 ||
	    memchr(c->p, 0, *n))
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += *n + 1;
	c->left -= *n + 1;
	return 0;
}

#endif /* TREC_PAYLOAD_FIELDS_H */
