// SPDX-License-Identifier: MIT
/* A streaming JSON writer (see json_writer.h). */
#include "report/output/json_writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/util.h"

#define BUF (64 * 1024)

struct rp_jw {
	FILE *out;
	bool gzip, zinit;
	z_stream z;
	int err;
	size_t len;
	int depth;
	bool comma[RP_JW_DEPTH]; /* a value was written at this level */
	char close[RP_JW_DEPTH]; /* its closing bracket */
	bool after_key;
	unsigned char buf[BUF], zbuf[BUF];
};

static void sink(struct rp_jw *jw, const unsigned char *p, size_t n, int flush)
{
	if (jw->err)
		return;
	if (!jw->gzip) {
		if (n && fwrite(p, 1, n, jw->out) != n)
			jw->err = 1;
		return;
	}
	jw->z.next_in = (Bytef *)p;
	jw->z.avail_in = (uInt)n;
	int zr;
	do {
		jw->z.next_out = jw->zbuf;
		jw->z.avail_out = sizeof(jw->zbuf);
		zr = deflate(&jw->z, flush);
		size_t have = sizeof(jw->zbuf) - jw->z.avail_out;
		if (zr == Z_STREAM_ERROR || (have && fwrite(jw->zbuf, 1, have, jw->out) != have)) {
			jw->err = 1;
			return;
		}
	} while (jw->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
}

static void put(struct rp_jw *jw, const void *p, size_t n)
{
	const unsigned char *s = p;
	while (n) {
		if (jw->len == BUF) {
			sink(jw, jw->buf, jw->len, Z_NO_FLUSH);
			jw->len = 0;
		}
		size_t k = BUF - jw->len < n ? BUF - jw->len : n;
		memcpy(jw->buf + jw->len, s, k);
		jw->len += k;
		s += k;
		n -= k;
	}
}

static void puts_(struct rp_jw *jw, const char *s)
{
	put(jw, s, strlen(s));
}

struct rp_jw *rp_jw_open(FILE *out, bool gzip)
{
	struct rp_jw *jw = xcalloc(1, sizeof(*jw));
	jw->out = out;
	jw->gzip = gzip;
	if (gzip) {
		if (deflateInit2(&jw->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			jw->err = 1;
		else
			jw->zinit = true;
	}
	return jw;
}

int rp_jw_close(struct rp_jw *jw)
{
	sink(jw, jw->buf, jw->len, jw->gzip ? Z_FINISH : Z_NO_FLUSH);
	if (jw->zinit)
		deflateEnd(&jw->z);
	int rc = jw->err || jw->depth ? -1 : 0;
	free(jw);
	return rc;
}

/* The comma before a value (none after a key or first in its container). */
static void value(struct rp_jw *jw)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (jw->depth && jw->depth <= RP_JW_DEPTH) {
		if (jw->comma[jw->depth - 1])
			put(jw, ",", 1);
		jw->comma[jw->depth - 1] = true;
	}
}

static void open_(struct rp_jw *jw, char c)
{
	value(jw);
	put(jw, &c, 1);
	if (jw->depth >= RP_JW_DEPTH) { /* callers nest far less: a bug, never bad JSON */
		jw->err = 1;
		return;
	}
	jw->comma[jw->depth] = false;
	jw->close[jw->depth] = c == '{' ? '}' : ']';
	jw->depth++;
}

void rp_jw_obj(struct rp_jw *jw) { open_(jw, '{'); }
void rp_jw_arr(struct rp_jw *jw) { open_(jw, '['); }

void rp_jw_end(struct rp_jw *jw)
{
	if (jw->depth > 0) {
		jw->depth--;
		put(jw, &jw->close[jw->depth], 1);
	}
}

/* The length of a valid UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		(c & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4))
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && c == 0xe0 && s[1] < 0xa0) || (n == 3 && c == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && c == 0xf0 && s[1] < 0x90) || (n == 4 && c == 0xf4 && s[1] >= 0x90))
		return 0; /* overlong, surrogate, beyond U+10FFFF */
	return n;
}

static void string(struct rp_jw *jw, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	put(jw, "\"", 1);
	while (*s) {
		int n = utf8_len(s);
		if (!n) {
			puts_(jw, "\xef\xbf\xbd"); /* U+FFFD */
			s++;
		} else if (*s == '"' || *s == '\\') {
			put(jw, "\\", 1);
			put(jw, s++, 1);
		} else if (*s < 0x20 || *s == 0x7f) {
			char e[8];
			snprintf(e, sizeof(e), "\\u%04x", *s++);
			puts_(jw, e);
		} else {
			put(jw, s, (size_t)n);
			s += n;
		}
	}
	put(jw, "\"", 1);
}

void rp_jw_key(struct rp_jw *jw, const char *key)
{
	value(jw);
	string(jw, key);
	put(jw, ":", 1);
	jw->after_key = true;
}

void rp_jw_str(struct rp_jw *jw, const char *s)
{
	value(jw);
	string(jw, s);
}

void rp_jw_raw(struct rp_jw *jw, const char *s)
{
	value(jw);
	puts_(jw, s);
}

void rp_jw_u64(struct rp_jw *jw, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRIu64, v);
	rp_jw_raw(jw, b);
}

void rp_jw_i64(struct rp_jw *jw, int64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRId64, v);
	rp_jw_raw(jw, b);
}

void rp_jw_frac(struct rp_jw *jw, uint64_t v, unsigned digits)
{
	uint64_t p = 1;
	for (unsigned i = 0; i < digits && i < 19; i++)
		p *= 10;
	char b[48];
	int n = snprintf(b, sizeof(b), "%" PRIu64, v / p);
	uint64_t r = v % p;
	if (r) {
		n += snprintf(b + n, sizeof(b) - (size_t)n, ".%0*" PRIu64, (int)digits, r);
		while (b[n - 1] == '0')
			b[--n] = 0;
	}
	rp_jw_raw(jw, b);
}

void rp_jw_bool(struct rp_jw *jw, bool v) { rp_jw_raw(jw, v ? "true" : "false"); }
void rp_jw_null(struct rp_jw *jw) { rp_jw_raw(jw, "null"); }
