/* SPDX-License-Identifier: MIT */
/*
 * treport's small containers: allocation that ends the program with one
 * message when memory runs out, a growable array, an index hash table and
 * a string interner. Kept here so every module uses the same few.
 */
#ifndef RP_UTIL_H
#define RP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "format/containers/index_table.h"

/* treport's policy when memory runs out: one message, exit status 1. */
_Noreturn void rp_out_of_memory(size_t n);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Grows *arr (element size esz) so that index need-1 fits. */
void rp_grow(void **arr, size_t *cap, size_t need, size_t esz);
#define RP_GROW(arr, cap, need) rp_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Weights come from hostile files: sums saturate instead of wrapping. */
static inline uint64_t rp_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}
static inline uint64_t rp_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t rp_hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t rp_hash_u64(uint64_t x)
{
	/* splitmix64 finalizer: cheap and mixes every bit */
	x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27; x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Index tables (format/containers/index_table.h); insert ends the
 * program when memory runs out, like x*(). */
void rp_itab_insert(struct trec_itab *t, uint64_t hash, uint32_t idx);

/* Interned NUL-terminated strings; id 0 is always "". */
struct rp_strtab {
	char **blocks;
	size_t nblocks, capblocks, block_used;
	const char **strs;
	size_t count, cap;
	struct trec_itab index;
};
void rp_strtab_init(struct rp_strtab *s);
uint32_t rp_strtab_intern(struct rp_strtab *s, const char *str);
uint32_t rp_strtab_intern_n(struct rp_strtab *s, const char *str, size_t len);
static inline const char *rp_str(const struct rp_strtab *s, uint32_t id)
{
	return id < s->count ? s->strs[id] : "";
}
void rp_strtab_free(struct rp_strtab *s);

/* Copies src into dst replacing bytes a text line cannot carry. */
void rp_sanitize(char *dst, size_t dstlen, const char *src);

/* Dynamic string buffer for building output lines. */
struct rp_buf {
	char *p;
	size_t len, cap;
};
void rp_buf_add(struct rp_buf *b, const char *s, size_t n);
static inline void rp_buf_adds(struct rp_buf *b, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	rp_buf_add(b, s, n);
}
void rp_buf_printf(struct rp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void rp_buf_reset(struct rp_buf *b) { b->len = 0; if (b->p) b->p[0] = 0; }
void rp_buf_free(struct rp_buf *b);

#endif /* RP_UTIL_H */
