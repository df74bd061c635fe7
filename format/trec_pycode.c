// SPDX-License-Identifier: MIT
/* PYCODE blob payload; see trec_pycode.h and FORMAT.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "payload_fields.h"
#include "trec_pycode.h"

/* Fixed part: pid, code_addr, object_id, firstlineno, major, minor, 2 pad. */
#define FIXED_LEN 24

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
	p = trec_pf_put(b, &c->pid, 4);
	p = trec_pf_put(p, &c->code_addr, 8);
	p = trec_pf_put(p, &c->object_id, 4);
	p = trec_pf_put(p, &c->firstlineno, 4);
	p = trec_pf_put(p, &c->py_major, 1);
	p = trec_pf_put(p, &c->py_minor, 1);
	p = trec_pf_put(p, pad, 2);
	p = trec_pf_put_str(p, c->filename, c->filename_len);
	p = trec_pf_put_str(p, c->name, c->name_len);
	p = trec_pf_put_str(p, c->qualname, c->qualname_len);
	p = trec_pf_put(p, &c->linetable_len, 4);
	p = trec_pf_put(p, c->linetable, c->linetable_len);
	*buf = b;
	*len = (size_t)(p - b);
	return 0;
}

int trec_pycode_decode(const uint8_t *data, size_t len, struct trec_pycode *out)
{
	struct trec_pf_cursor c = { data, len };
	uint8_t pad[2];

	memset(out, 0, sizeof(*out));
	if (trec_pf_take(&c, &out->pid, 4) || trec_pf_take(&c, &out->code_addr, 8) ||
	    trec_pf_take(&c, &out->object_id, 4) || trec_pf_take(&c, &out->firstlineno, 4) ||
	    trec_pf_take(&c, &out->py_major, 1) || trec_pf_take(&c, &out->py_minor, 1) ||
	    trec_pf_take(&c, pad, 2) || pad[0] || pad[1] || !out->object_id ||
	    trec_pf_take_str(&c, &out->filename, &out->filename_len, TREC_PYCODE_MAX_STR) ||
	    trec_pf_take_str(&c, &out->name, &out->name_len, TREC_PYCODE_MAX_STR) ||
	    trec_pf_take_str(&c, &out->qualname, &out->qualname_len, TREC_PYCODE_MAX_STR) ||
	    trec_pf_take(&c, &out->linetable_len, 4) || out->linetable_len > TREC_PYCODE_MAX_LINETABLE ||
	    c.left != out->linetable_len)
		return -EBADMSG;
	out->linetable = c.p;
	return 0;
}
