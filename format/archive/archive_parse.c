// SPDX-License-Identifier: MIT
/*
 * Archive bytes -> tables. Every count is checked against the bytes left
 * before anything is allocated, every index against its table, every
 * address step against overflow, so hostile input gives one message and
 * -EBADMSG, never a crash or an unbounded allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/archive/archive_reader.h"
#include "format/archive/archive_internal.h"
#include "encode.h"

/* The format library's cursor for the primitives, plus what a message
 * needs: where the archive starts and which section is being read. */
struct cur {
	struct trec_cur in;
	const uint8_t *start;
	const char *what;
	char *err;
	size_t errlen;
	int bad;
};

static void fail(struct cur *c, const char *fmt, ...)
{
	if (c->bad)
		return;
	c->bad = c->in.bad = 1;
	if (!c->err || !c->errlen)
		return;
	int n = snprintf(c->err, c->errlen, "symbol archive: %s at byte %zu: ", c->what,
			 (size_t)(c->in.p - c->start));
	if (n < 0 || (size_t)n >= c->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static size_t left(const struct cur *c)
{
	return trec_cur_left(&c->in);
}

static const uint8_t *take(struct cur *c, size_t n)
{
	if (c->bad)
		return NULL;
	if (left(c) < n) {
		fail(c, "truncated (%zu bytes needed, %zu left)", n, left(c));
		return NULL;
	}
	const uint8_t *p = c->in.p;
	c->in.p += n;
	return p;
}

static uint64_t varint(struct cur *c)
{
	if (c->bad)
		return 0;
	uint64_t v = trec_cur_varint(&c->in);
	if (c->in.bad)
		fail(c, "truncated or overlong varint");
	return v;
}

static uint32_t varint32(struct cur *c, uint64_t max, const char *field)
{
	uint64_t v = varint(c);
	if (!c->bad && v > max)
		fail(c, "%s %llu out of range (max %llu)", field, (unsigned long long)v,
		     (unsigned long long)max);
	return c->bad ? 0 : (uint32_t)v;
}

static int64_t zigzag(struct cur *c)
{
	return trec_zigzag_dec(varint(c));
}

/* A count of entries each at least min_bytes long: bounded by the input. */
static size_t count(struct cur *c, size_t min_bytes, const char *what)
{
	uint64_t n = varint(c);
	if (!c->bad && n > left(c) / min_bytes)
		fail(c, "%llu %s cannot fit in %zu bytes", (unsigned long long)n, what,
		     left(c));
	return c->bad ? 0 : (size_t)n;
}

static uint64_t add_addr(struct cur *c, uint64_t base, uint64_t delta)
{
	if (!c->bad && base + delta < base)
		fail(c, "address overflows 64 bits");
	return base + delta;
}

/* ---- sections ------------------------------------------------------------- */

static int parse_strings(struct cur *c, struct trec_archive *a)
{
	struct trec_arc_tables *t = &a->t;
	size_t n = count(c, 2, "strings");
	uint64_t total = varint(c);
	uint64_t cap = (uint64_t)(c->in.end - c->start) * 64 + 65536;
	if (c->bad)
		return -EBADMSG;
	if (total > cap) {
		fail(c, "string table of %llu bytes is implausible", (unsigned long long)total);
		return -EBADMSG;
	}
	a->arena = malloc(total + n + 1);
	t->strings = calloc(n + 1, sizeof(*t->strings));
	if (!a->arena || !t->strings)
		return -ENOMEM;
	char *w = a->arena, *wend = a->arena + total + n;
	const char *prev = "";
	size_t prev_len = 0;
	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t shared = varint(c), rest = varint(c);
		if (c->bad)
			break;
		if (shared > prev_len || rest > TREC_ARC_MAX_STRING - shared) {
			fail(c, "string %zu: bad lengths %llu+%llu", i,
			     (unsigned long long)shared, (unsigned long long)rest);
			break;
		}
		if ((uint64_t)(wend - w) < shared + rest + 1) {
			fail(c, "strings exceed the declared %llu bytes", (unsigned long long)total);
			break;
		}
		const uint8_t *s = take(c, (size_t)rest);
		if (!s)
			break;
		for (uint64_t k = 0; k < rest; k++)
			if (s[k] < 0x20 || s[k] == 0x7f) {
				fail(c, "string %zu has control byte %#x", i, s[k]);
				break;
			}
		memmove(w, prev, (size_t)shared); /* prev is earlier in the arena */
		memcpy(w + shared, s, (size_t)rest);
		w[shared + rest] = 0;
		t->strings[i] = w;
		prev = w;
		prev_len = (size_t)(shared + rest);
		w += prev_len + 1;
	}
	t->num_strings = c->bad ? 0 : n;
	return c->bad ? -EBADMSG : 0;
}

static int parse_symbols(struct cur *c, struct trec_archive *a)
{
	struct trec_arc_tables *t = &a->t;
	size_t n = count(c, 3, "symbols");
	if (c->bad)
		return -EBADMSG;
	t->syms = calloc(n + 1, sizeof(*t->syms));
	if (!t->syms)
		return -ENOMEM;
	uint64_t prev_end = 0, prev_addr = 0;
	for (size_t i = 0; i < n && !c->bad; i++) {
		struct trec_arc_sym *s = &t->syms[i];
		int64_t gap = zigzag(c);
		s->addr = prev_end + (uint64_t)gap;
		s->size = varint(c);
		uint64_t nb = varint(c);
		if (c->bad)
			break;
		if ((gap < 0 ? s->addr > prev_end : s->addr < prev_end) ||
		    (i && s->addr < prev_addr)) {
			fail(c, "symbol %zu: address out of order", i);
			break;
		}
		prev_end = add_addr(c, s->addr, s->size);
		if ((nb >> 2) >= t->num_strings || (nb & 3) > TREC_ARC_BIND_WEAK) {
			fail(c, "symbol %zu: bad name or binding %llu", i, (unsigned long long)nb);
			break;
		}
		s->name = (uint32_t)(nb >> 2);
		s->bind = nb & 3;
		prev_addr = s->addr;
	}
	t->num_syms = c->bad ? 0 : n;
	return c->bad ? -EBADMSG : 0;
}

static int parse_lines(struct cur *c, struct trec_archive *a)
{
	struct trec_arc_tables *t = &a->t;
	size_t n = count(c, 2, "line rows");
	if (c->bad)
		return -EBADMSG;
	t->lines = calloc(n + 1, sizeof(*t->lines));
	if (!t->lines)
		return -ENOMEM;
	uint64_t addr = 0;
	uint32_t file = 0;
	int64_t line = 0;
	for (size_t i = 0; i < n && !c->bad; i++) {
		addr = add_addr(c, addr, varint(c));
		uint64_t v = varint(c);
		if ((v & 1) && !c->bad)
			file = varint32(c, t->num_strings, "file");
		int64_t dline = trec_zigzag_dec(v >> 1);
		if (file) {
			line += dline;
			if (line < 0 || line > UINT32_MAX) {
				fail(c, "line row %zu: line %lld out of range", i, (long long)line);
				break;
			}
		}
		t->lines[i] = (struct trec_arc_line){
			.addr = addr, .file = file, .line = file ? (uint32_t)line : 0 };
	}
	t->num_lines = c->bad ? 0 : n;
	return c->bad ? -EBADMSG : 0;
}

static int parse_inlines(struct cur *c, struct trec_archive *a)
{
	struct trec_arc_tables *t = &a->t;
	size_t nd = count(c, 1, "inline depths");
	if (!c->bad && nd > TREC_ARC_MAX_DEPTH)
		fail(c, "%zu inline depths (max %u)", nd, TREC_ARC_MAX_DEPTH);
	if (c->bad)
		return -EBADMSG;
	t->depths = calloc(nd + 1, sizeof(*t->depths));
	if (!t->depths)
		return -ENOMEM;
	t->num_depths = nd;
	for (size_t d = 0; d < nd && !c->bad; d++) {
		struct trec_arc_depth *dp = &t->depths[d];
		size_t n = count(c, 5, "inline ranges");
		if (c->bad)
			break;
		dp->v = calloc(n + 1, sizeof(*dp->v));
		if (!dp->v)
			return -ENOMEM;
		uint64_t prev_hi = 0;
		int64_t line = 0;
		for (size_t i = 0; i < n && !c->bad; i++) {
			struct trec_arc_inline *in = &dp->v[i];
			in->lo = add_addr(c, prev_hi, varint(c));
			uint64_t len = varint(c);
			in->hi = add_addr(c, in->lo, len);
			in->name = varint32(c, t->num_strings ? t->num_strings - 1 : 0, "name");
			in->call_file = varint32(c, t->num_strings, "call file");
			int64_t dline = zigzag(c);
			if (c->bad)
				break;
			/* line stays in [0, UINT32_MAX], so a bounded step cannot overflow. */
			if (dline >= -(int64_t)UINT32_MAX && dline <= (int64_t)UINT32_MAX)
				line += dline;
			else
				line = -1;
			if (!len || !t->num_strings || line < 0 || line > UINT32_MAX) {
				fail(c, "inline range %zu of depth %zu is malformed", i, d + 1);
				break;
			}
			in->call_line = (uint32_t)line;
			prev_hi = in->hi;
			dp->num = i + 1;
		}
	}
	return c->bad ? -EBADMSG : 0;
}

static int parse_layout(struct cur *c, struct trec_archive *a)
{
	struct trec_arc_tables *t = &a->t;
	t->entry = varint(c);
	size_t n = count(c, 5, "ELF sections");
	if (!c->bad && n > TREC_ARC_MAX_SECTIONS)
		fail(c, "%zu ELF sections (max %u)", n, TREC_ARC_MAX_SECTIONS);
	if (c->bad)
		return -EBADMSG;
	t->sections = calloc(n + 1, sizeof(*t->sections));
	if (!t->sections)
		return -ENOMEM;
	for (size_t i = 0; i < n && !c->bad; i++) {
		struct trec_arc_elfsec *s = &t->sections[i];
		s->name = varint32(c, t->num_strings ? t->num_strings - 1 : 0, "section name");
		s->type = varint32(c, UINT32_MAX, "section type");
		s->flags = varint(c);
		s->addr = varint(c);
		s->size = varint(c);
		add_addr(c, s->addr, s->size);
		if (!c->bad && !t->num_strings)
			fail(c, "ELF section without a string table");
	}
	t->num_sections = c->bad ? 0 : n;
	size_t ng = count(c, 4, "ELF segments");
	if (!c->bad && ng > TREC_ARC_MAX_SEGMENTS)
		fail(c, "%zu ELF segments (max %u)", ng, TREC_ARC_MAX_SEGMENTS);
	if (c->bad)
		return -EBADMSG;
	t->segments = calloc(ng + 1, sizeof(*t->segments));
	if (!t->segments)
		return -ENOMEM;
	for (size_t i = 0; i < ng && !c->bad; i++) {
		struct trec_arc_segment *g = &t->segments[i];
		g->flags = varint32(c, UINT32_MAX, "segment flags");
		g->vaddr = varint(c);
		g->memsz = varint(c);
		g->align = varint(c);
		add_addr(c, g->vaddr, g->memsz);
	}
	t->num_segments = c->bad ? 0 : ng;
	return c->bad ? -EBADMSG : 0;
}

/* ---- the whole archive ------------------------------------------------------ */

struct section_ref {
	const uint8_t *p;
	size_t len;
	int seen;
};

static int parse_section(struct trec_archive *a, struct cur *top, const struct section_ref *s,
			 const char *name, int (*fn)(struct cur *, struct trec_archive *))
{
	struct cur c = { .in = { .p = s->p, .end = s->p + s->len }, .start = top->start,
			 .what = name, .err = top->err, .errlen = top->errlen };
	int err = fn(&c, a);
	if (!err && left(&c)) {
		fail(&c, "%zu trailing bytes", left(&c));
		err = -EBADMSG;
	}
	return err;
}

int trec_archive_parse(const uint8_t *data, size_t len, struct trec_archive **out,
		       char *err, size_t errlen)
{
	struct cur c = { .in = { .p = data, .end = data + len }, .start = data,
			 .what = "header", .err = err, .errlen = errlen };
	struct section_ref secs[TREC_ARC_SEC_MAX + 1] = { { 0 } };
	int rc = -EBADMSG;

	if (err && errlen)
		err[0] = 0;
	*out = NULL;
	struct trec_archive *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;

	const uint8_t *h = take(&c, 12);
	if (!h)
		goto out;
	if (memcmp(h, TREC_ARC_MAGIC, TREC_ARC_MAGIC_LEN)) {
		fail(&c, "bad magic");
		goto out;
	}
	if (h[4] != TREC_ARC_VERSION_MAJOR) {
		fail(&c, "version %u.%u is not supported (this reader: %u.x)", h[4], h[5],
		     TREC_ARC_VERSION_MAJOR);
		rc = -EPROTONOSUPPORT;
		goto out;
	}
	a->t.level = h[6];
	a->t.elf_class = h[7];
	a->t.e_machine = (uint16_t)(h[8] | h[9] << 8);
	a->t.e_type = h[10];
	a->t.build_id_len = h[11];
	if (a->t.build_id_len > TREC_ARC_MAX_BUILD_ID) {
		fail(&c, "build-id of %u bytes", a->t.build_id_len);
		goto out;
	}
	const uint8_t *bid = take(&c, a->t.build_id_len);
	if (!bid)
		goto out;
	memcpy(a->t.build_id, bid, a->t.build_id_len);
	a->t.sources = varint32(&c, UINT32_MAX, "sources");
	a->t.load_vaddr = varint(&c);

	while (!c.bad && left(&c)) {
		c.what = "section list";
		const uint8_t *tag = take(&c, 1);
		uint64_t slen = varint(&c);
		if (c.bad)
			break;
		if (slen > left(&c)) {
			fail(&c, "section %u of %llu bytes overruns the archive", tag[0],
			     (unsigned long long)slen);
			break;
		}
		if (tag[0] >= 1 && tag[0] <= TREC_ARC_SEC_MAX) {
			struct section_ref *s = &secs[tag[0]];
			if (s->seen) {
				fail(&c, "section %u appears twice", tag[0]);
				break;
			}
			*s = (struct section_ref){ .p = c.in.p, .len = (size_t)slen, .seen = 1 };
		}
		c.in.p += slen; /* unknown sections are skipped: minor versions add them */
	}
	if (c.bad)
		goto out;
	if (!secs[TREC_ARC_SEC_STRINGS].seen || !secs[TREC_ARC_SEC_SYMBOLS].seen) {
		fail(&c, "no %s section",
		     secs[TREC_ARC_SEC_STRINGS].seen ? "SYMBOLS" : "STRINGS");
		goto out;
	}
	/* Strings first: every other section indexes them. */
	if ((rc = parse_section(a, &c, &secs[TREC_ARC_SEC_STRINGS], "STRINGS", parse_strings)) ||
	    (rc = parse_section(a, &c, &secs[TREC_ARC_SEC_SYMBOLS], "SYMBOLS", parse_symbols)))
		goto out;
	if (secs[TREC_ARC_SEC_LINES].seen &&
	    (rc = parse_section(a, &c, &secs[TREC_ARC_SEC_LINES], "LINES", parse_lines)))
		goto out;
	if (secs[TREC_ARC_SEC_INLINES].seen &&
	    (rc = parse_section(a, &c, &secs[TREC_ARC_SEC_INLINES], "INLINES", parse_inlines)))
		goto out;
	if (secs[TREC_ARC_SEC_ELF_LAYOUT].seen &&
	    (rc = parse_section(a, &c, &secs[TREC_ARC_SEC_ELF_LAYOUT], "ELF_LAYOUT",
				parse_layout)))
		goto out;
	*out = a;
	return 0;
out:
	trec_archive_free(a);
	return rc;
}

void trec_archive_free(struct trec_archive *a)
{
	if (!a)
		return;
	free(a->t.strings);
	free(a->t.syms);
	free(a->t.lines);
	for (size_t d = 0; d < a->t.num_depths; d++)
		free(a->t.depths[d].v);
	free(a->t.depths);
	free(a->t.sections);
	free(a->t.segments);
	free(a->arena);
	free(a);
}

const struct trec_arc_tables *trec_archive_tables(const struct trec_archive *a)
{
	return &a->t;
}
