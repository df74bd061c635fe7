// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the .gopclntab parser (record/archive/gopclntab*.c).
 * The first input byte picks a mode:
 *   0: the rest is an ELF file, opened from memory (section, symbol and
 *      header-scan lookups, then the table);
 *   1: the rest is a table at a fixed address, readable also as the image
 *      that inline trees and moduledata are read from;
 *   2: a valid header (layout, quantum and sub-table split taken from the
 *      next bytes) is put in front of the rest, so mutations reach the
 *      function records and pc-value tables instead of dying at the header.
 * Whatever parses is walked function by function and looked up at pcs
 * across its text, so the sanitizers see any read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "format/gopclntab/gopclntab.h"

#define VADDR 0x10000ull

static void on_line(void *ctx, uint64_t addr, const char *file, uint32_t line)
{
	*(uint64_t *)ctx += addr + line + (file ? strlen(file) : 0);
}

static void on_inlined(void *ctx, unsigned depth, uint64_t lo, uint64_t hi, const char *name,
		       const char *call_file, uint32_t call_line)
{
	*(uint64_t *)ctx += depth + lo + hi + strlen(name) + call_line +
			    (call_file ? strlen(call_file) : 0);
}

static void on_sp(void *ctx, uint64_t lo, uint64_t hi, int32_t sp_delta)
{
	*(uint64_t *)ctx += hi - lo + (uint64_t)(uint32_t)sp_delta;
}

static void exercise(struct gopclntab *g)
{
	uint64_t sum = 0, lo, hi;
	const struct gopcln_visitor v = { .ctx = &sum, .line = on_line, .inlined = on_inlined };
	size_t n = gopclntab_num_funcs(g);
	for (size_t i = 0; i < n && i < 4096; i++) {
		struct gopcln_func f;
		if (!gopclntab_func(g, i, &f) && f.name)
			sum += strlen(f.name);
		gopclntab_walk_func(g, i, &v);
		gopclntab_walk_sp(g, i, on_sp, &sum);
	}
	gopclntab_text_range(g, &lo, &hi);
	for (int k = 0; k <= 64; k++) {
		struct gopcln_frame fr[GOPCLN_MAX_DEPTH + 1];
		uint64_t pc = lo + (hi - lo) / 64 * (uint64_t)k + (uint64_t)k;
		int m = gopclntab_lookup(g, pc, fr, GOPCLN_MAX_DEPTH + 1);
		for (int j = 0; j < m; j++)
			sum += (fr[j].function ? strlen(fr[j].function) : 0) +
			       (fr[j].file ? strlen(fr[j].file) : 0) + fr[j].line;
	}
	if (sum == 42)
		gopclntab_layout(g); /* keep sum alive */
}

static void fuzz_elf(const uint8_t *p, size_t n)
{
	char *copy = malloc(n ? n : 1);
	memcpy(copy, p, n);
	Elf *e = elf_memory(copy, n);
	struct gopclntab *g = NULL;
	if (e && !gopclntab_open_elf(e, &g))
		exercise(g);
	gopclntab_free(g);
	if (e)
		elf_end(e);
	free(copy);
}

/* The table at VADDR; the image also maps its second half writable, where
 * a moduledata may be. */
static void fuzz_table(const uint8_t *p, size_t n)
{
	struct gopcln_region r[2] = { { VADDR, p, n, false },
				      { VADDR + 0x10000000ull, p + n / 2, n - n / 2, true } };
	struct gopcln_image img = { r, 2, 0x400000 };
	struct gopclntab *g = NULL;
	if (!gopclntab_parse(&img, VADDR, n, &g))
		exercise(g);
	gopclntab_free(g);
}

static void put(uint8_t *b, size_t at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[at + i] = (uint8_t)(v >> (8 * i));
}

static void fuzz_with_header(const uint8_t *p, size_t n)
{
	static const uint32_t magic[3] = { GOPCLN_MAGIC_116, GOPCLN_MAGIC_118, GOPCLN_MAGIC_120 };
	if (n < 8)
		return;
	int m = p[0] % 3, words = m ? 8 : 7;
	size_t hdr = 8 + 8 * (size_t)words, body = n - 8, len = hdr + body;
	uint8_t *t = malloc(len);
	put(t, 0, magic[m], 4);
	put(t, 4, 0, 2);
	put(t, 6, p[1] & 4 ? 4 : 1, 1);
	put(t, 7, 8, 1);
	/* Sub-table boundaries: increasing cuts of the body. */
	uint64_t cut[5], at = hdr;
	for (int k = 0; k < 5; k++) {
		at += body * (p[2 + k / 2] >> (4 * (k & 1)) & 0xf) / 64;
		cut[k] = at < len ? at : len;
	}
	uint64_t w[8] = { 1 + p[7] % 64, 3 }, *o = w + 2;
	if (m)
		*o++ = 0x400000;
	for (int k = 0; k < 5; k++)
		*o++ = cut[k];
	for (int k = 0; k < words; k++)
		put(t, 8 + 8u * (size_t)k, w[k], 8);
	memcpy(t + hdr, p + 8, body);
	fuzz_table(t, len);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	if (!init) {
		elf_version(EV_CURRENT);
		init = 1;
	}
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_elf(data + 1, size - 1);
		break;
	case 1: {
		uint8_t *copy = malloc(size - 1 ? size - 1 : 1); /* exact size for ASan */
		memcpy(copy, data + 1, size - 1);
		fuzz_table(copy, size - 1);
		free(copy);
		break;
	}
	default:
		fuzz_with_header(data + 1, size - 1);
		break;
	}
	return 0;
}
