// SPDX-License-Identifier: MIT
/* Containers shared by treport's modules (see util.h). */
#include "report/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "treport: out of memory (allocating %zu bytes)\n", n);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
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
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / esz)
			out_of_memory(SIZE_MAX);
		ncap *= 2;
	}
	*arr = xrealloc(*arr, ncap * esz);
	*cap = ncap;
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

static void htab_rehash(struct rp_htab *t, size_t ncap)
{
	uint64_t *old = t->slots;
	size_t ocap = t->cap;
	t->slots = xcalloc(ncap, sizeof(*t->slots));
	t->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i])
			continue;
		size_t j = (old[i] >> 32) & (ncap - 1);
		while (t->slots[j])
			j = (j + 1) & (ncap - 1);
		t->slots[j] = old[i];
	}
	free(old);
}

uint32_t rp_htab_find(const struct rp_htab *t, uint64_t hash, rp_htab_eq_fn eq, const void *ctx)
{
	if (!t->cap)
		return RP_HTAB_NONE;
	uint32_t h32 = (uint32_t)(hash ^ (hash >> 32));
	size_t j = h32 & (t->cap - 1);
	for (;;) {
		uint64_t s = t->slots[j];
		if (!s)
			return RP_HTAB_NONE;
		if ((uint32_t)(s >> 32) == h32 && eq(ctx, (uint32_t)s - 1))
			return (uint32_t)s - 1;
		j = (j + 1) & (t->cap - 1);
	}
}

void rp_htab_insert(struct rp_htab *t, uint64_t hash, uint32_t idx)
{
	if ((t->count + 1) * 4 > t->cap * 3)
		htab_rehash(t, t->cap ? t->cap * 2 : 64);
	uint32_t h32 = (uint32_t)(hash ^ (hash >> 32));
	size_t j = h32 & (t->cap - 1);
	while (t->slots[j])
		j = (j + 1) & (t->cap - 1);
	t->slots[j] = ((uint64_t)h32 << 32) | ((uint64_t)idx + 1);
	t->count++;
}

void rp_htab_free(struct rp_htab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
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
	uint32_t id = rp_htab_find(&s->index, h, str_eq, &k);
	if (id != RP_HTAB_NONE)
		return id;
	char *p = str_alloc(s, len + 1);
	memcpy(p, str, len);
	p[len] = 0;
	RP_GROW(s->strs, s->cap, s->count + 1);
	id = (uint32_t)s->count;
	s->strs[s->count++] = p;
	rp_htab_insert(&s->index, h, id);
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
	rp_htab_free(&s->index);
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
