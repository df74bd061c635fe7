// SPDX-License-Identifier: MIT
/*
 * .gopclntab into a symbol archive. A stripped Go binary has no .symtab
 * and no DWARF, but its pclntab names every function, maps every pc to
 * file:line and records the inlined calls: the archive takes them from it.
 *
 * Symbols: only when the symbol table names fewer than half of the Go
 * functions (stripped), so an unstripped binary keeps its .symtab names.
 * Lines and inlined calls (levels FULL, SAMPLED): from the pclntab in the
 * Go text, replacing DWARF's there even when the binary has DWARF. On Go
 * 1.19 both give the same rows (tests/unit/test_gopclntab.c measures it);
 * the pclntab is the same stripped or not, is what Go's own tracebacks
 * read, keeps the inlined wrapper calls Go's DWARF omits, and costs one
 * pass over small tables. C code of a cgo binary keeps its DWARF.
 */
#include <errno.h>
#include <stdlib.h>

#include "record/archive/archive_build.h"
#include "format/gopclntab/gopclntab.h"
#include "record/archive/gopclntab_archive.h"

static bool in_range(uint64_t a, uint64_t lo, uint64_t hi)
{
	return a >= lo && a < hi;
}

/* Symbols collected so far that fall in [lo, hi). */
static size_t symbols_in(const struct arc_builder *b, uint64_t lo, uint64_t hi)
{
	size_t n = 0;
	for (size_t i = 0; i < b->t.num_syms; i++)
		n += in_range(b->t.syms[i].addr, lo, hi);
	return n;
}

static void add_symbols(struct arc_builder *b, const struct gopclntab *g)
{
	size_t n = gopclntab_num_funcs(g);
	for (size_t i = 0; i < n && !b->oom; i++) {
		struct gopcln_func f;
		if (!gopclntab_func(g, i, &f) && f.name && f.end > f.entry)
			arc_add_sym(b, f.entry, f.end - f.entry, f.name, TREC_ARC_BIND_GLOBAL);
	}
}

/* Drops DWARF's rows and inlined calls inside the Go text, which the
 * pclntab describes instead. */
static void drop_dwarf_in(struct arc_builder *b, uint64_t lo, uint64_t hi)
{
	size_t m = 0;
	for (size_t i = 0; i < b->t.num_lines; i++)
		if (!in_range(b->t.lines[i].addr, lo, hi))
			b->t.lines[m++] = b->t.lines[i];
	b->t.num_lines = m;
	for (size_t d = 0; d < b->t.num_depths; d++) {
		struct trec_arc_depth *dp = &b->t.depths[d];
		m = 0;
		for (size_t i = 0; i < dp->num; i++)
			if (dp->v[i].hi <= lo || dp->v[i].lo >= hi)
				dp->v[m++] = dp->v[i];
		dp->num = m;
	}
}

static void on_line(void *ctx, uint64_t addr, const char *file, uint32_t line)
{
	arc_add_line(ctx, addr, file, line);
}

static void on_inlined(void *ctx, unsigned depth, uint64_t lo, uint64_t hi, const char *name,
		       const char *call_file, uint32_t call_line)
{
	arc_add_inline(ctx, depth, lo, hi, name, call_file, call_line);
}

/* Marks the functions holding one of addrs; NULL on allocation failure. */
static uint8_t *sampled_funcs(const struct gopclntab *g, const uint64_t *addrs, size_t naddrs)
{
	uint8_t *mark = calloc(gopclntab_num_funcs(g) + 1, 1);
	for (size_t i = 0; mark && i < naddrs; i++) {
		long f = gopclntab_find(g, addrs[i]);
		if (f >= 0)
			mark[f] = 1;
	}
	return mark;
}

/* Lines and inlined calls of every function (or the marked ones). A
 * damaged function is skipped; a table past its decoding budget ends the
 * walk, keeping what came before. */
static void add_lines(struct arc_builder *b, struct gopclntab *g, const uint8_t *only)
{
	const struct gopcln_visitor v = { .ctx = b, .line = on_line, .inlined = on_inlined };
	size_t n = gopclntab_num_funcs(g);
	for (size_t i = 0; i < n && !b->oom; i++) {
		int err = only && !only[i] ? 0 : gopclntab_walk_func(g, i, &v);
		if (err == -ENOMEM)
			b->oom = 1;
		else if (err == -E2BIG)
			break;
	}
}

uint32_t arc_collect_gopclntab(struct arc_builder *b, Elf *elf, int level,
			       const uint64_t *addrs, size_t naddrs)
{
	struct gopclntab *g;
	uint64_t lo, hi;
	uint32_t src = 0;
	if (gopclntab_open_elf(elf, &g))
		return 0;
	gopclntab_text_range(g, &lo, &hi);
	if (symbols_in(b, lo, hi) < gopclntab_num_funcs(g) / 2) {
		add_symbols(b, g);
		src = TREC_ARC_SRC_GOPCLNTAB;
	}
	if (level >= TREC_ARCHIVE_FULL) {
		uint8_t *only = NULL;
		if (level == TREC_ARCHIVE_SAMPLED && !(only = sampled_funcs(g, addrs, naddrs)))
			b->oom = 1;
		if (!b->oom) {
			drop_dwarf_in(b, lo, hi);
			add_lines(b, g, only);
			src = TREC_ARC_SRC_GOPCLNTAB;
		}
		free(only);
	}
	gopclntab_free(g);
	return src;
}
