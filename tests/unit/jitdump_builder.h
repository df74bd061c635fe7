/* SPDX-License-Identifier: MIT */
/*
 * Builds jitdump files in memory, record by record, in either byte order:
 * for the parser's unit test and the fuzz seed corpus. Header-only
 * (static) because unit tests are built one file each.
 */
#ifndef TREC_JITDUMP_BUILDER_H
#define TREC_JITDUMP_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/jit/jitdump.h"

struct jb {
	uint8_t *p;
	size_t len, cap;
	bool swap; /* write big-endian (this host is little-endian) */
};

static inline void jb_put(struct jb *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline void jb_u32(struct jb *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	jb_put(b, &v, 4);
}

static inline void jb_u64(struct jb *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	jb_put(b, &v, 8);
}

static inline void jb_header(struct jb *b, uint32_t size, uint64_t flags)
{
	jb_u32(b, TREC_JITDUMP_MAGIC);
	jb_u32(b, 1);
	jb_u32(b, size);
	jb_u32(b, 62);
	jb_u32(b, 0);
	jb_u32(b, 4242);
	jb_u64(b, 1);
	jb_u64(b, flags);
	for (uint32_t i = 40; i < size; i++)
		jb_put(b, "", 1);
}

static inline void jb_prefix(struct jb *b, uint32_t id, uint32_t size, uint64_t ts)
{
	jb_u32(b, id);
	jb_u32(b, size);
	jb_u64(b, ts);
}

/* A load with pad zero bytes between name and code, as the JVMTI agent
 * aligns its code. */
static inline void jb_load(struct jb *b, uint64_t ts, uint64_t addr, uint64_t size, uint64_t index,
		 const char *name, uint32_t pad)
{
	uint32_t total = 56 + (uint32_t)strlen(name) + 1 + pad + (uint32_t)size;

	jb_prefix(b, TREC_JITDUMP_CODE_LOAD, total, ts);
	jb_u32(b, 4242);
	jb_u32(b, 4243);
	jb_u64(b, addr);
	jb_u64(b, addr);
	jb_u64(b, size);
	jb_u64(b, index);
	jb_put(b, name, strlen(name) + 1);
	for (uint32_t i = 0; i < pad + size; i++)
		jb_put(b, i < pad ? "" : "\xcc", 1);
}

static inline void jb_move(struct jb *b, uint64_t ts, uint64_t from, uint64_t to, uint64_t size,
		 uint64_t index)
{
	jb_prefix(b, TREC_JITDUMP_CODE_MOVE, 64, ts);
	jb_u32(b, 4242);
	jb_u32(b, 4243);
	jb_u64(b, to);
	jb_u64(b, from);
	jb_u64(b, to);
	jb_u64(b, size);
	jb_u64(b, index);
}

struct drow {
	uint64_t addr;
	int32_t line;
	const char *file; /* NULL: "\xff", the previous row's */
};

static inline void jb_debug(struct jb *b, uint64_t ts, uint64_t addr, const struct drow *r, uint32_t n)
{
	uint32_t total = 32;

	for (uint32_t i = 0; i < n; i++)
		total += 16 + (uint32_t)(r[i].file ? strlen(r[i].file) : 1) + 1;
	jb_prefix(b, TREC_JITDUMP_CODE_DEBUG_INFO, total, ts);
	jb_u64(b, addr);
	jb_u64(b, n);
	for (uint32_t i = 0; i < n; i++) {
		jb_u64(b, r[i].addr);
		jb_u32(b, (uint32_t)r[i].line);
		jb_u32(b, 0);
		jb_put(b, r[i].file ? r[i].file : "\xff", (r[i].file ? strlen(r[i].file) : 1) + 1);
	}
}

/* The good file: rows then load A, load B, an unwinding record, an
 * unknown record, B moved, close. */
static inline void jb_good(struct jb *b)
{
	static const struct drow rows[] = {
		{ 0x7f0000001020, 12, "/app/fib.js" }, /* out of order: sorted by the parser */
		{ 0x7f0000001000, 10, "/app/fib.js" },
		{ 0x7f0000001010, 11, NULL },
		{ 0x7f0000001030, -5, "/app/other.js" },
	};

	jb_header(b, 40, 0);
	jb_debug(b, 90, 0x7f0000001000, rows, 4);
	jb_load(b, 100, 0x7f0000001000, 0x40, 1, "JS:*fib /app/fib.js:1", 0);
	jb_load(b, 200, 0x7f0000002000, 0x20, 2, "Interpreter", 5);
	jb_prefix(b, TREC_JITDUMP_CODE_UNWINDING_INFO, 16 + 24 + 8, 210);
	jb_u64(b, 8);
	jb_u64(b, 0);
	jb_u64(b, 0);
	jb_u64(b, 0);
	jb_prefix(b, 77, 24, 220);
	jb_u64(b, 0);
	jb_move(b, 300, 0x7f0000002000, 0x7f0000003000, 0x20, 2);
	jb_prefix(b, TREC_JITDUMP_CODE_CLOSE, 16, 400);
}

#endif /* TREC_JITDUMP_BUILDER_H */
