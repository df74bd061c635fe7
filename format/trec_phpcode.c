// SPDX-License-Identifier: MIT
/* PHP INTERP_CODE payload; see trec_phpcode.h and FORMAT.md §12.3. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trec_phpcode.h"

/* pid, func_addr, object_id, type, major, minor, reserved, line_start,
 * line_end. */
#define FIXED_LEN 28

/* Little-endian host (x86-64, arm64): fields are copied as they are. */
struct out {
	uint8_t *p;
};

static void emit(struct out *o, const void *v, size_t n)
{
	if (n)
		memcpy(o->p, v, n);
	o->p += n;
}

static void emit_str(struct out *o, const char *s, uint32_t n)
{
	emit(o, &n, 4);
	emit(o, s, n);
	*o->p++ = 0;
}

int trec_phpcode_encode(const struct trec_phpcode *c, uint8_t **buf, size_t *len)
{
	const uint8_t reserved = 0;
	struct out o;
	uint8_t *b;

	if (c->function_len > TREC_PHPCODE_MAX_STR || c->class_len > TREC_PHPCODE_MAX_STR ||
	    c->file_len > TREC_PHPCODE_MAX_STR)
		return -EINVAL;
	b = malloc(FIXED_LEN + 3 * 5 + (size_t)c->function_len + c->class_len + c->file_len);
	if (!b)
		return -ENOMEM;
	o.p = b;
	emit(&o, &c->pid, 4);
	emit(&o, &c->func_addr, 8);
	emit(&o, &c->object_id, 4);
	emit(&o, &c->type, 1);
	emit(&o, &c->php_major, 1);
	emit(&o, &c->php_minor, 1);
	emit(&o, &reserved, 1);
	emit(&o, &c->line_start, 4);
	emit(&o, &c->line_end, 4);
	emit_str(&o, c->function, c->function_len);
	emit_str(&o, c->class_name, c->class_len);
	emit_str(&o, c->file, c->file_len);
	*buf = b;
	*len = (size_t)(o.p - b);
	return 0;
}

struct in {
	const uint8_t *p;
	size_t left;
	int bad;
};

static void fetch(struct in *in, void *v, size_t n)
{
	if (in->bad || in->left < n) {
		in->bad = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, in->p, n);
	in->p += n;
	in->left -= n;
}

/* u32 length, the bytes, a NUL; no NUL inside. */
static const char *fetch_str(struct in *in, uint32_t *n)
{
	const char *s;

	fetch(in, n, 4);
	if (in->bad || *n > TREC_PHPCODE_MAX_STR || in->left < (size_t)*n + 1 ||
	    in->p[*n] != 0 || memchr(in->p, 0, *n)) {
		in->bad = 1;
		*n = 0;
		return "";
	}
	s = (const char *)in->p;
	in->p += *n + 1;
	in->left -= *n + 1;
	return s;
}

int trec_phpcode_decode(const uint8_t *data, size_t len, struct trec_phpcode *out)
{
	struct in in = { data, len, !data && len };
	uint8_t reserved;

	memset(out, 0, sizeof(*out));
	fetch(&in, &out->pid, 4);
	fetch(&in, &out->func_addr, 8);
	fetch(&in, &out->object_id, 4);
	fetch(&in, &out->type, 1);
	fetch(&in, &out->php_major, 1);
	fetch(&in, &out->php_minor, 1);
	fetch(&in, &reserved, 1);
	fetch(&in, &out->line_start, 4);
	fetch(&in, &out->line_end, 4);
	out->function = fetch_str(&in, &out->function_len);
	out->class_name = fetch_str(&in, &out->class_len);
	out->file = fetch_str(&in, &out->file_len);
	if (in.bad || in.left || reserved ||
	    (out->type != TREC_PHPCODE_INTERNAL && out->type != TREC_PHPCODE_USER &&
	     out->type != TREC_PHPCODE_EVAL))
		return -EBADMSG;
	return 0;
}
