// SPDX-License-Identifier: MIT
/*
 * Canonical archive tables -> bytes (FORMAT.md, "Embedded symbol archives").
 * Everything after the fixed header is varints: addresses as gaps from the
 * previous entry's end, lines as signed deltas, strings front-coded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/archive/trec_archive.h"
#include "encode.h"

static void encode_strings(struct trec_buf *o, const struct trec_arc_tables *t)
{
	uint64_t total = 0;
	for (size_t i = 0; i < t->num_strings; i++)
		total += strlen(t->strings[i]);
	trec_buf_varint(o, t->num_strings);
	trec_buf_varint(o, total);
	const char *prev = "";
	for (size_t i = 0; i < t->num_strings; i++) {
		const char *s = t->strings[i];
		size_t shared = 0;
		while (prev[shared] && prev[shared] == s[shared])
			shared++;
		size_t rest = strlen(s + shared);
		trec_buf_varint(o, shared);
		trec_buf_varint(o, rest);
		trec_buf_put(o, s + shared, rest);
		prev = s;
	}
}

static void encode_symbols(struct trec_buf *o, const struct trec_arc_tables *t)
{
	uint64_t prev_end = 0;
	trec_buf_varint(o, t->num_syms);
	for (size_t i = 0; i < t->num_syms; i++) {
		const struct trec_arc_sym *s = &t->syms[i];
		trec_buf_varint(o, trec_zigzag_enc((int64_t)(s->addr - prev_end)));
		trec_buf_varint(o, s->size);
		trec_buf_varint(o, (uint64_t)s->name << 2 | s->bind);
		prev_end = s->addr + s->size;
	}
}

/* A gap row (file 0) leaves the running line alone, so the row after it
 * costs a small delta again. */
static void encode_lines(struct trec_buf *o, const struct trec_arc_tables *t)
{
	uint64_t prev_addr = 0;
	uint32_t prev_file = 0, prev_line = 0;
	trec_buf_varint(o, t->num_lines);
	for (size_t i = 0; i < t->num_lines; i++) {
		const struct trec_arc_line *l = &t->lines[i];
		int changed = l->file != prev_file;
		int64_t dline = l->file ? (int64_t)l->line - prev_line : 0;
		trec_buf_varint(o, l->addr - prev_addr);
		trec_buf_varint(o, trec_zigzag_enc(dline) << 1 | (uint64_t)changed);
		if (changed)
			trec_buf_varint(o, l->file);
		prev_addr = l->addr;
		prev_file = l->file;
		if (l->file)
			prev_line = l->line;
	}
}

static void encode_inlines(struct trec_buf *o, const struct trec_arc_tables *t)
{
	trec_buf_varint(o, t->num_depths);
	for (size_t d = 0; d < t->num_depths; d++) {
		const struct trec_arc_depth *dp = &t->depths[d];
		uint64_t prev_hi = 0;
		uint32_t prev_line = 0;
		trec_buf_varint(o, dp->num);
		for (size_t i = 0; i < dp->num; i++) {
			const struct trec_arc_inline *in = &dp->v[i];
			TREC_BUF_VARINTS(o, in->lo - prev_hi, in->hi - in->lo, in->name,
					 in->call_file,
					 trec_zigzag_enc((int64_t)in->call_line - prev_line));
			prev_hi = in->hi;
			prev_line = in->call_line;
		}
	}
}

static void encode_layout(struct trec_buf *o, const struct trec_arc_tables *t)
{
	trec_buf_varint(o, t->entry);
	trec_buf_varint(o, t->num_sections);
	for (size_t i = 0; i < t->num_sections; i++) {
		const struct trec_arc_elfsec *s = &t->sections[i];
		TREC_BUF_VARINTS(o, s->name, s->type, s->flags, s->addr, s->size);
	}
	trec_buf_varint(o, t->num_segments);
	for (size_t i = 0; i < t->num_segments; i++) {
		const struct trec_arc_segment *g = &t->segments[i];
		TREC_BUF_VARINTS(o, g->flags, g->vaddr, g->memsz, g->align);
	}
}

static void section(struct trec_buf *o, uint8_t tag, const struct trec_arc_tables *t,
		    void (*enc)(struct trec_buf *, const struct trec_arc_tables *))
{
	struct trec_buf body = { 0 };
	enc(&body, t);
	if (body.oom)
		o->oom = 1;
	trec_buf_u8(o, tag);
	trec_buf_varint(o, body.len);
	trec_buf_put(o, body.data, body.len);
	trec_buf_free(&body);
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
	if (t->num_sections > TREC_ARC_MAX_SECTIONS || t->num_segments > TREC_ARC_MAX_SEGMENTS)
		return 0;
	for (size_t i = 0; i < t->num_sections; i++)
		if (t->sections[i].name >= t->num_strings)
			return 0;
	return 1;
}

int trec_archive_encode(const struct trec_arc_tables *t, uint8_t **out, size_t *out_len)
{
	struct trec_buf o = { 0 };
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
	trec_buf_put(&o, hdr, sizeof(hdr));
	trec_buf_put(&o, t->build_id, t->build_id_len);
	trec_buf_varint(&o, t->sources);
	trec_buf_varint(&o, t->load_vaddr);
	section(&o, TREC_ARC_SEC_STRINGS, t, encode_strings);
	section(&o, TREC_ARC_SEC_SYMBOLS, t, encode_symbols);
	if (t->num_lines)
		section(&o, TREC_ARC_SEC_LINES, t, encode_lines);
	if (t->num_depths)
		section(&o, TREC_ARC_SEC_INLINES, t, encode_inlines);
	if (t->num_sections || t->num_segments)
		section(&o, TREC_ARC_SEC_ELF_LAYOUT, t, encode_layout);
	if (o.oom || o.len > TREC_ARC_MAX_BYTES) {
		int err = o.oom ? -ENOMEM : -EFBIG;
		trec_buf_free(&o);
		return err;
	}
	*out = o.data;
	*out_len = o.len;
	return 0;
}
