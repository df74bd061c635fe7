// SPDX-License-Identifier: MIT
/* Ruby iseq descriptions; see ruby_iseq.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "record/interp/ruby/ruby_iseq.h"

#define T_MASK 0x1f
#define T_STRING 0x05
#define T_ARRAY 0x07
#define FL_USER1 (1ULL << 13)
#define STR_NOEMBED FL_USER1          /* RSTRING_NOEMBED */
#define STR_EMBED_LEN(f) ((f) >> 14 & 0x1f)
#define ARY_EMBED FL_USER1            /* RARRAY_EMBED_FLAG */
#define ARY_EMBED_LEN(f) ((f) >> 15 & 3)
#define BODY_READ 152                 /* through insns_info.succ_index_table */
#define MAX_ISEQ_WORDS (1u << 21)     /* bounds the index we read (2M words: no real method comes near) */
#define SUCC_IMM 54                   /* IMMEDIATE_TABLE_SIZE */
#define SUCC_BLOCK_WORDS 10           /* rank (padded), small ranks, bits[8] */

struct mem {
	trec_rb_read_fn read;
	void *ctx;
	const struct trec_rb_layout *lay;
};

static int rd64(const struct mem *m, uint64_t addr, uint64_t *v)
{
	return m->read(m->ctx, addr, v, sizeof(*v));
}

static uint64_t word_at(const uint8_t *b, uint16_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* A String object's bytes (malloc'ed, NUL-terminated, cut to the format's
 * limit, NULs inside replaced). */
static int read_str(const struct mem *m, uint64_t v, char **out, uint32_t *len)
{
	uint64_t flags, n, ptr;
	char *s;
	int err = 0;

	if (!v || (v & 7) || (err = rd64(m, v, &flags)))
		return err ? err : -EINVAL;
	if ((flags & T_MASK) != T_STRING)
		return -EINVAL;
	if (flags & STR_NOEMBED) {
		if ((err = rd64(m, v + m->lay->str_heap_len, &n)) ||
		    (err = rd64(m, v + m->lay->str_heap_ptr, &ptr)))
			return err;
	} else {
		n = STR_EMBED_LEN(flags);
		ptr = v + m->lay->str_embed_ptr;
	}
	if (n > TREC_RBCODE_MAX_STR)
		n = TREC_RBCODE_MAX_STR;
	s = malloc(n + 1);
	if (!s)
		return -ENOMEM;
	if (n && (err = m->read(m->ctx, ptr, s, n))) {
		free(s);
		return err;
	}
	for (uint64_t i = 0; i < n; i++)
		if (!s[i])
			s[i] = '?';
	s[n] = 0;
	*out = s;
	*len = (uint32_t)n;
	return 0;
}

/* location.pathobj: the path String, or [path, realpath]. */
static int read_path(const struct mem *m, uint64_t v, char **out, uint32_t *len)
{
	uint64_t flags, n, elems;
	int err = 0;

	if (!v || (v & 7) || (err = rd64(m, v, &flags)))
		return err ? err : -EINVAL;
	if ((flags & T_MASK) != T_ARRAY)
		return read_str(m, v, out, len);
	if (flags & ARY_EMBED) {
		n = ARY_EMBED_LEN(flags);
		elems = v + m->lay->ary_embed_ptr;
	} else if ((err = rd64(m, v + m->lay->ary_heap_len, &n)) ||
		   (err = rd64(m, v + m->lay->ary_heap_ptr, &elems))) {
		return err;
	}
	if (n < 1 || (err = rd64(m, elems, &v)))
		return err ? err : -EINVAL;
	return read_str(m, v, out, len);
}

size_t trec_rb_succ_words(uint32_t max_pos)
{
	size_t imm = (max_pos < SUCC_IMM ? max_pos + 8 : SUCC_IMM) / 9;
	size_t blocks = max_pos < SUCC_IMM ? 0 : (max_pos - SUCC_IMM + 511) / 512;

	return imm + blocks * SUCC_BLOCK_WORDS;
}

int trec_rb_succ_positions(const uint64_t *table, size_t nwords, uint32_t max_pos,
			   uint32_t size, uint32_t *positions)
{
	size_t imm = (max_pos < SUCC_IMM ? max_pos + 8 : SUCC_IMM) / 9;
	uint32_t n = 0, prev = 0;

	if (nwords < trec_rb_succ_words(max_pos))
		return -EINVAL;
	/* Immediate part: the rank of every position x < 54, 7 bits each; a
	 * position is where the rank steps up. */
	for (uint32_t x = 0; x < imm * 9; x++) {
		uint32_t rank = (uint32_t)(table[x / 9] >> (7 * (x % 9))) & 0x7f;

		if (rank == prev)
			continue;
		if (rank != prev + 1 || n == size)
			return -EINVAL;
		positions[n++] = x;
		prev = rank;
	}
	/* Blocks of 512 positions: raw bits after the rank words. */
	for (size_t w = imm; w + SUCC_BLOCK_WORDS <= nwords; w += SUCC_BLOCK_WORDS) {
		uint32_t base = SUCC_IMM + (uint32_t)((w - imm) / SUCC_BLOCK_WORDS) * 512;

		for (uint32_t j = 0; j < 8; j++)
			for (uint32_t i = 0; i < 64; i++) {
				if (!(table[w + 2 + j] >> i & 1))
					continue;
				if (n == size)
					return -EINVAL;
				positions[n++] = base + j * 64 + i;
			}
	}
	return n == size ? 0 : -EINVAL;
}

/* insns_info: the position of each entry, then its line. */
static int read_lines(const struct mem *m, const uint8_t *body, uint32_t iseq_size,
		      struct trec_rbcode_owned *out)
{
	const struct trec_rb_layout *l = m->lay;
	uint64_t entries = word_at(body, l->body_insns_info);
	uint64_t positions_ptr = word_at(body, l->body_insns_info + 8);
	uint64_t succ = word_at(body, l->body_succ_table);
	uint32_t size, *pos = NULL;
	uint64_t *table = NULL;
	uint8_t *ent = NULL;
	size_t nwords;
	int err = -ENOMEM;

	memcpy(&size, body + l->body_insns_size, sizeof(size));
	if (size == 0)
		return 0;
	if (size > TREC_RBCODE_MAX_LINES || size > iseq_size || iseq_size > MAX_ISEQ_WORDS)
		return -EINVAL;
	pos = calloc(size, sizeof(*pos));
	ent = malloc((size_t)size * l->insn_entry_size);
	out->lines = calloc(size, sizeof(*out->lines));
	if (!pos || !ent || !out->lines)
		goto out;
	if ((err = m->read(m->ctx, entries, ent, (size_t)size * l->insn_entry_size)))
		goto out;
	if (size == 1) {
		pos[0] = 0; /* MRI uses the one entry for every position */
	} else if (positions_ptr) {
		/* A build that keeps the plain array (VM_CHECK_MODE). */
		if ((err = m->read(m->ctx, positions_ptr, pos, (size_t)size * sizeof(*pos))))
			goto out;
	} else {
		nwords = trec_rb_succ_words(iseq_size);
		err = -ENOMEM;
		if (!succ || !(table = malloc(nwords * 8)))
			goto out;
		if ((err = m->read(m->ctx, succ, table, nwords * 8)) ||
		    (err = trec_rb_succ_positions(table, nwords, iseq_size, size, pos)))
			goto out;
	}
	for (uint32_t i = 0; i < size; i++) {
		int32_t line;

		memcpy(&line, ent + (size_t)i * l->insn_entry_size + l->insn_entry_line, 4);
		if ((i && pos[i] <= pos[i - 1]) || pos[i] >= iseq_size) {
			err = -EINVAL;
			goto out;
		}
		out->lines[i] = (struct trec_rbcode_line){ pos[i], line };
	}
	out->c.lines = out->lines;
	out->c.num_lines = size;
	err = 0;
out:
	free(pos);
	free(ent);
	free(table);
	return err;
}

int trec_rb_read_iseq(trec_rb_read_fn read, void *ctx, uint32_t pid,
		      const struct trec_rb_offsets *o, uint64_t addr, uint32_t object_id,
		      struct trec_rbcode_owned *out)
{
	const struct trec_rb_layout *l = &o->lay;
	struct mem m = { read, ctx, l };
	uint8_t body[BODY_READ];
	__u64 id[TREC_RB_ID_WORDS];
	uint64_t body_addr, first;
	uint32_t iseq_size;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!addr || (err = rd64(&m, addr + o->info.iseq_body, &body_addr)))
		return err ? err : -EINVAL;
	if (!body_addr || (err = read(ctx, body_addr, body, sizeof(body))))
		return err ? err : -EINVAL;
	for (int i = 0; i < TREC_RB_ID_WORDS; i++)
		id[i] = word_at(body, o->info.body_id[i]);
	memcpy(&iseq_size, body + l->body_iseq_size, sizeof(iseq_size));
	first = word_at(body, l->body_first_lineno);
	out->c.pid = pid;
	out->c.iseq_addr = addr;
	out->c.object_id = trec_rb_object_id(body_addr, id);
	out->c.first_lineno = (first & 1) ? (int32_t)((int64_t)first >> 1) : 0;
	out->c.rb_major = o->major;
	out->c.rb_minor = o->minor;
	if (object_id && out->c.object_id != object_id)
		return -ESTALE; /* not the iseq the sample saw */
	if ((err = read_str(&m, word_at(body, l->body_label), &out->label, &out->c.label_len)) ||
	    (err = read_path(&m, word_at(body, l->body_pathobj), &out->path, &out->c.path_len)) ||
	    (err = read_lines(&m, body, iseq_size, out))) {
		trec_rbcode_owned_free(out);
		return err;
	}
	out->c.label = out->label;
	out->c.path = out->path;
	return 0;
}

void trec_rbcode_owned_free(struct trec_rbcode_owned *c)
{
	free(c->label);
	free(c->path);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}
