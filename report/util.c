// SPDX-License-Identifier: MIT
/* Containers shared by treport's modules (see util.h). */
#include "report/util.h"
#include "format/containers/vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rp_out_of_memory(size_t n)
{
	fprintf(stderr, "treport: out of memory (allocating %zu bytes)\n", n);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		rp_out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		rp_out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		rp_out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

void rp_grow(void **arr, size_t *cap, size_t need, size_t esz)
{
	if (trec_grow(arr, cap, need, esz, 16))
		rp_out_of_memory(need * esz);
}

/* FNV-1a over 8-byte words, finished with splitmix: fast enough for stacks. */
uint64_t rp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		b += 8;
		n -= 8;
	}
	while (n--) {
		h = (h ^ *b++) * 0x100000001b3ULL;
	}
	return rp_hash_u64(h);
}

/* ---- index hash table ---------------------------------------------------- */

void rp_itab_insert(struct trec_itab *t, uint64_t hash, uint32_t idx)
{
	if (trec_itab_insert(t, hash, idx))
		rp_out_of_memory((t->cap ? t->cap * 2 : 64) * sizeof(*t->slots));
}

/* ---- string interner ----------------------------------------------------- */

#define STR_BLOCK 65536

void rp_strtab_init(struct rp_strtab *s)
{
	memset(s, 0, sizeof(*s));
	rp_strtab_intern(s, "");
}

struct str_key {
	const struct rp_strtab *s;
	const char *str;
	size_t len;
};

static bool str_eq(const void *ctx, uint32_t idx)
{
	const struct str_key *k = ctx;
	const char *c = k->s->strs[idx];
	return strncmp(c, k->str, k->len) == 0 && c[k->len] == 0;
}

static char *str_alloc(struct rp_strtab *s, size_t n)
{
	if (n > STR_BLOCK / 4) { /* big strings get their own block */
		RP_GROW(s->blocks, s->capblocks, s->nblocks + 1);
		char *p = xmalloc(n);
		/* keep the current block last so small strings keep filling it */
		if (s->nblocks) {
			s->blocks[s->nblocks] = s->blocks[s->nblocks - 1];
			s->blocks[s->nblocks - 1] = p;
		} else {
			s->blocks[0] = p;
			s->block_used = STR_BLOCK; /* no current small block yet */
		}
		s->nblocks++;
		return p;
	}
	if (!s->nblocks || s->block_used + n > STR_BLOCK) {
		RP_GROW(s->blocks, s->capblocks, s->nblocks + 1);
		s->blocks[s->nblocks++] = xmalloc(STR_BLOCK);
		s->block_used = 0;
	}
	char *p = s->blocks[s->nblocks - 1] + s->block_used;
	s->block_used += n;
	return p;
}

uint32_t rp_strtab_intern_n(struct rp_strtab *s, const char *str, size_t len)
{
	struct str_key k = { s, str, len };
	uint64_t h = rp_hash_bytes(str, len, 0);
	uint32_t id = trec_itab_find(&s->index, h, str_eq, &k);
	if (id != TREC_ITAB_NONE)
		return id;
	char *p = str_alloc(s, len + 1);
	memcpy(p, str, len);
	p[len] = 0;
	RP_GROW(s->strs, s->cap, s->count + 1);
	id = (uint32_t)s->count;
	s->strs[s->count++] = p;
	rp_itab_insert(&s->index, h, id);
	return id;
}

uint32_t rp_strtab_intern(struct rp_strtab *s, const char *str)
{
	return rp_strtab_intern_n(s, str, strlen(str));
}

void rp_strtab_free(struct rp_strtab *s)
{
	for (size_t i = 0; i < s->nblocks; i++)
		free(s->blocks[i]);
	free(s->blocks);
	free(s->strs);
	trec_itab_free(&s->index);
	memset(s, 0, sizeof(*s));
}

void rp_sanitize(char *dst, size_t dstlen, const char *src)
{
	size_t i = 0;
	if (!dstlen)
		return;
	for (; src[i] && i + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[i] = 0;
}

/* ---- string buffer ------------------------------------------------------- */

void rp_buf_add(struct rp_buf *b, const char *s, size_t n)
{
	RP_GROW(b->p, b->cap, b->len + n + 1);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void rp_buf_printf(struct rp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		rp_buf_add(b, tmp, (size_t)n);
		return;
	}
	RP_GROW(b->p, b->cap, b->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rp_buf_free(struct rp_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
