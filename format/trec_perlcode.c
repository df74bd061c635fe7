// SPDX-License-Identifier: MIT
/* Perl INTERP_CODE payload; see trec_perlcode.h and FORMAT.md §12.1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "payload_fields.h"
#include "trec_perlcode.h"

/* Fixed part: pid, cop_addr, key, line, reserved. */
#define FIXED_LEN 28

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
	p = trec_pf_put(b, &c->pid, 4);
	p = trec_pf_put(p, &c->cop_addr, 8);
	p = trec_pf_put(p, &c->key, 8);
	p = trec_pf_put(p, &c->line, 4);
	p = trec_pf_put(p, &reserved, 4);
	p = trec_pf_put_str(p, c->package, c->package_len);
	p = trec_pf_put_str(p, c->name, c->name_len);
	p = trec_pf_put_str(p, c->file, c->file_len);
	*buf = b;
	*len = (size_t)(p - b);
	return 0;
}

int trec_perlcode_decode(const uint8_t *data, size_t len, struct trec_perlcode *out)
{
	struct trec_pf_cursor c = { data, len };
	uint32_t reserved;

	memset(out, 0, sizeof(*out));
	if (!data && len)
		return -EBADMSG;
	if (trec_pf_take(&c, &out->pid, 4) || trec_pf_take(&c, &out->cop_addr, 8) ||
	    trec_pf_take(&c, &out->key, 8) || trec_pf_take(&c, &out->line, 4) ||
	    trec_pf_take(&c, &reserved, 4) || reserved != 0 ||
	    trec_pf_take_str(&c, &out->package, &out->package_len, TREC_PERLCODE_MAX_STR) ||
	    trec_pf_take_str(&c, &out->name, &out->name_len, TREC_PERLCODE_MAX_STR) ||
	    trec_pf_take_str(&c, &out->file, &out->file_len, TREC_PERLCODE_MAX_STR) || c.left != 0)
		return -EBADMSG;
	return 0;
}
