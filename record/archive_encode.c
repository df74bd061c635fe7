// SPDX-License-Identifier: MIT
/*
 * Canonical archive tables -> bytes (FORMAT.md, "Embedded symbol archives").
 * Everything after the fixed header is varints: addresses as gaps from the
 * previous entry's end, lines as signed deltas, strings front-coded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"

struct obuf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static void ob_reserve(struct obuf *o, size_t n)
{
	if (o->oom || o->len + n <= o->cap)
		return;
	size_t cap = o->cap ? o->cap : 4096;
	while (cap < o->len + n)
		cap *= 2;
	uint8_t *p = realloc(o->p, cap);
	if (!p) {
		o->oom = 1;
		return;
	}
	o->p = p;
	o->cap = cap;
}

static void ob_put(struct obuf *o, const void *p, size_t n)
{
	ob_reserve(o, n);
	if (o->oom)
		return;
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

static void ob_u8(struct obuf *o, uint8_t v)
{
	ob_put(o, &v, 1);
}

static void ob_varint(struct obuf *o, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	ob_put(o, b, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void encode_strings(struct obuf *o, const struct trec_arc_tables *t)
{
	uint64_t total = 0;
	for (size_t i = 0; i < t->num_strings; i++)
		total += strlen(t->strings[i]);
	ob_varint(o, t->num_strings);
	ob_varint(o, total);
	const char *prev = "";
	for (size_t i = 0; i < t->num_strings; i++) {
		const char *s = t->strings[i];
		size_t shared = 0;
		while (prev[shared] && prev[shared] == s[shared])
			shared++;
		size_t rest = strlen(s + shared);
		ob_varint(o, shared);
		ob_varint(o, rest);
		ob_put(o, s + shared, rest);
		prev = s;
	}
}

static void encode_symbols(struct obuf *o, const struct trec_arc_tables *t)
{
	uint64_t prev_end = 0;
	ob_varint(o, t->num_syms);
	for (size_t i = 0; i < t->num_syms; i++) {
		const struct trec_arc_sym *s = &t->syms[i];
		ob_varint(o, zigzag((int64_t)(s->addr - prev_end)));
		ob_varint(o, s->size);
		ob_varint(o, (uint64_t)s->name << 2 | s->bind);
		prev_end = s->addr + s->size;
	}
}

/* A gap row (file 0) leaves the running line alone, so the row after it
 * costs a small delta again. */
static void encode_lines(struct obuf *o, const struct trec_arc_tables *t)
{
	uint64_t prev_addr = 0;
	uint32_t prev_file = 0, prev_line = 0;
	ob_varint(o, t->num_lines);
	for (size_t i = 0; i < t->num_lines; i++) {
		const struct trec_arc_line *l = &t->lines[i];
		int changed = l->file != prev_file;
		int64_t dline = l->file ? (int64_t)l->line - prev_line : 0;
		ob_varint(o, l->addr - prev_addr);
		ob_varint(o, zigzag(dline) << 1 | (uint64_t)changed);
		if (changed)
			ob_varint(o, l->file);
		prev_addr = l->addr;
		prev_file = l->file;
		if (l->file)
			prev_line = l->line;
	}
}

static void encode_inlines(struct obuf *o, const struct trec_arc_tables *t)
{
	ob_varint(o, t->num_depths);
	for (size_t d = 0; d < t->num_depths; d++) {
		const struct trec_arc_depth *dp = &t->depths[d];
		uint64_t prev_hi = 0;
		uint32_t prev_line = 0;
		ob_varint(o, dp->num);
		for (size_t i = 0; i < dp->num; i++) {
			const struct trec_arc_inline *in = &dp->v[i];
			ob_varint(o, in->lo - prev_hi);
			ob_varint(o, in->hi - in->lo);
			ob_varint(o, in->name);
			ob_varint(o, in->call_file);
			ob_varint(o, zigzag((int64_t)in->call_line - prev_line));
			prev_hi = in->hi;
			prev_line = in->call_line;
		}
	}
}

static void section(struct obuf *o, uint8_t tag, const struct trec_arc_tables *t,
		    void (*enc)(struct obuf *, const struct trec_arc_tables *))
{
	struct obuf body = { 0 };
	enc(&body, t);
	if (body.oom)
		o->oom = 1;
	ob_u8(o, tag);
	ob_varint(o, body.len);
	ob_put(o, body.p, body.len);
	free(body.p);
}

/* The encoder's half of the format's promises: what the decoder checks. */
static int tables_valid(const struct trec_arc_tables *t)
{
	if (t->build_id_len > TREC_ARC_MAX_BUILD_ID || t->num_depths > TREC_ARC_MAX_DEPTH)
		return 0;
	for (size_t i = 0; i < t->num_syms; i++)
		if (t->syms[i].name >= t->num_strings || t->syms[i].bind > TREC_ARC_BIND_WEAK ||
		    (i && t->syms[i].addr < t->syms[i - 1].addr))
			return 0;
	for (size_t i = 0; i < t->num_lines; i++)
		if (t->lines[i].file > t->num_strings ||
		    (i && t->lines[i].addr < t->lines[i - 1].addr))
			return 0;
	for (size_t d = 0; d < t->num_depths; d++)
		for (size_t i = 0; i < t->depths[d].num; i++) {
			const struct trec_arc_inline *in = &t->depths[d].v[i];
			if (in->lo >= in->hi || in->name >= t->num_strings ||
			    in->call_file > t->num_strings ||
			    (i && in->lo < t->depths[d].v[i - 1].hi))
				return 0;
		}
	for (size_t i = 0; i < t->num_strings; i++)
		if (strlen(t->strings[i]) > TREC_ARC_MAX_STRING)
			return 0;
	return 1;
}

int trec_archive_encode(const struct trec_arc_tables *t, uint8_t **out, size_t *out_len)
{
	struct obuf o = { 0 };
	uint8_t hdr[12];

	if (!tables_valid(t))
		return -EINVAL;
	memcpy(hdr, TREC_ARC_MAGIC, TREC_ARC_MAGIC_LEN);
	hdr[4] = TREC_ARC_VERSION_MAJOR;
	hdr[5] = TREC_ARC_VERSION_MINOR;
	hdr[6] = (uint8_t)t->level;
	hdr[7] = t->elf_class;
	hdr[8] = (uint8_t)t->e_machine;
	hdr[9] = (uint8_t)(t->e_machine >> 8);
	hdr[10] = t->e_type;
	hdr[11] = t->build_id_len;
	ob_put(&o, hdr, sizeof(hdr));
	ob_put(&o, t->build_id, t->build_id_len);
	ob_varint(&o, t->sources);
	section(&o, TREC_ARC_SEC_STRINGS, t, encode_strings);
	section(&o, TREC_ARC_SEC_SYMBOLS, t, encode_symbols);
	if (t->num_lines)
		section(&o, TREC_ARC_SEC_LINES, t, encode_lines);
	if (t->num_depths)
		section(&o, TREC_ARC_SEC_INLINES, t, encode_inlines);
	if (o.oom) {
		free(o.p);
		return -ENOMEM;
	}
	if (o.len > TREC_ARC_MAX_BYTES) {
		free(o.p);
		return -EFBIG;
	}
	*out = o.p;
	*out_len = o.len;
	return 0;
}
