// SPDX-License-Identifier: MIT
/*
 * Code no CFI covers, inside a file's executable ranges: a FRAME_POINTER
 * rule where that code keeps rbp as a frame pointer, so BPF walks it by
 * frame record (bpf/fp_unwind.h) instead of ending the stack there. Only
 * on evidence: code built without frame pointers uses rbp as a general
 * register, and a chain through it would name wrong callers, so any other
 * gap keeps its INVALID rule.
 *
 *  - Go (a .gopclntab, .go.buildinfo or Go build-id section): gc keeps
 *    frame pointers in all its amd64 code and writes no .eh_frame (its
 *    .debug_frame is not used: it does not track rbp); only int3 padding
 *    is left out. cgo's C code keeps the .eh_frame of its objects.
 *  - Elsewhere, a gap where at least a quarter of the function symbols
 *    start with push %rbp; mov %rsp,%rbp (after an endbr64 in CET
 *    builds): V8's embedded builtins in node
 *    (the others are stubs that run in their caller's frame), hand-written
 *    code built with frame pointers. Those functions also get the exact
 *    rules of the prologue's first 4 bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "record/unwind/ehframe.h"

#define CMD_FP ((uint16_t)(TREC_UNWIND_COMMAND | TREC_CMD_FRAME_POINTER))

struct code_scn {
	uint64_t addr, size;
	const uint8_t *bytes;
};

struct gap_ctx {
	Elf *elf;
	bool go;
	struct code_scn scn[32];
	size_t num_scn;
	uint64_t *funcs; /* function symbol starts in executable ranges, sorted */
	size_t num_funcs;
};

static bool has_section(Elf *elf, size_t shstrndx, const char *const *names, size_t n);

bool trec_elf_is_go(Elf *elf)
{
	static const char *const go_sections[] = { ".gopclntab", ".go.buildinfo",
						   ".note.go.buildid" };
	size_t shstrndx;

	return !elf_getshdrstrndx(elf, &shstrndx) && has_section(elf, shstrndx, go_sections, 3);
}

static bool has_section(Elf *elf, size_t shstrndx, const char *const *names, size_t n)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(name, names[i]))
				return true;
	}
	return false;
}

/* The code bytes at [addr, addr + len), or NULL. */
static const uint8_t *code_at(const struct gap_ctx *g, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < g->num_scn; i++)
		if (addr >= g->scn[i].addr && addr + len <= g->scn[i].addr + g->scn[i].size)
			return g->scn[i].bytes + (addr - g->scn[i].addr);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Function starts from .symtab, else .dynsym. */
static int read_funcs(struct gap_ctx *g, const struct trec_exec_ranges *exec)
{
	Elf_Scn *best = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	for (Elf_Scn *scn = elf_nextscn(g->elf, NULL); scn; scn = elf_nextscn(g->elf, scn))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB ||
					       (sh.sh_type == SHT_DYNSYM && !best)))
			best = scn;
	Elf_Data *d = best ? elf_getdata(best, NULL) : NULL;
	if (!d || !gelf_getshdr(best, &sh) || !sh.sh_entsize)
		return 0;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !trec_exec_contains(exec, sym.st_value, sym.st_value + 1))
			continue;
		if (g->num_funcs == cap) {
			uint64_t *v = realloc(g->funcs, (cap = cap ? 2 * cap : 1024) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			g->funcs = v;
		}
		g->funcs[g->num_funcs++] = sym.st_value;
	}
	if (g->num_funcs)
		qsort(g->funcs, g->num_funcs, sizeof(*g->funcs), cmp_u64);
	return 0;
}

/* The offset of push %rbp; mov %rsp,%rbp at a function's start (after
 * an endbr64 in CET builds), or -1. */
static int fp_prologue(const struct gap_ctx *g, uint64_t addr)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *p = code_at(g, addr, 8);
	int k = p && !memcmp(p, endbr64, 4) ? 4 : 0;

	/* either encoding of the mov */
	if (p && p[k] == 0x55 && p[k + 1] == 0x48 &&
	    ((p[k + 2] == 0x89 && p[k + 3] == 0xe5) || (p[k + 2] == 0x8b && p[k + 3] == 0xec)))
		return k;
	return -1;
}

static int push_row(struct trec_rows *r, uint64_t start, uint64_t end, uint16_t command,
		    int32_t cfa_param, uint8_t fp_rule)
{
	struct trec_row row = { .start = start, .end = end, .command = command };

	if (!command) {
		row.info.cfa_reg = TREC_REG_SP;
		row.info.cfa_param = cfa_param;
		row.info.fp_rule = fp_rule;
		row.info.fp_param = fp_rule == TREC_FP_AT_CFA ? -16 : 0;
	}
	return trec_rows_push(r, &row);
}

/* Rules for the gap [lo, hi), into pro (prologues) and fp (the rest). */
static int gap_rows(const struct gap_ctx *g, uint64_t lo, uint64_t hi, struct trec_rows *pro,
		    struct trec_rows *fp)
{
	size_t first = 0, nsym = 0, nfp = 0, end;
	int err = 0;

	if (g->go) {
		const uint8_t *p = code_at(g, lo, hi - lo);
		uint64_t i = 0;

		while (p && i < hi - lo && p[i] == 0xcc)
			i++;
		return p && i == hi - lo ? 0 : push_row(fp, lo, hi, CMD_FP, 0, 0);
	}
	/* lower bound of lo in the sorted starts */
	for (size_t n = g->num_funcs; n > 0;) {
		size_t half = n / 2;

		if (g->funcs[first + half] < lo) {
			first += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	for (end = first; end < g->num_funcs && g->funcs[end] < hi; end++) {
		if (end > first && g->funcs[end] == g->funcs[end - 1])
			continue; /* aliases */
		nsym++;
		nfp += fp_prologue(g, g->funcs[end]) >= 0;
	}
	if (!nfp || nfp * 4 < nsym)
		return 0;
	for (size_t i = first; i < end && !err; i++) {
		uint64_t s = g->funcs[i];
		int k = fp_prologue(g, s);

		if ((i > first && s == g->funcs[i - 1]) || k < 0 || s + k + 4 > hi)
			continue;
		/* before the push, then until the mov has set rbp */
		err = push_row(pro, s, s + k + 1, 0, 8, TREC_FP_SAME);
		err = err ?: push_row(pro, s + k + 1, s + k + 4, 0, 16, TREC_FP_AT_CFA);
	}
	return err ?: push_row(fp, lo, hi, CMD_FP, 0, 0);
}

static void read_code(struct gap_ctx *g)
{
	for (Elf_Scn *scn = elf_nextscn(g->elf, NULL); scn; scn = elf_nextscn(g->elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (g->num_scn == sizeof(g->scn) / sizeof(g->scn[0]))
			return;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		g->scn[g->num_scn++] = (struct code_scn){ sh.sh_addr, d->d_size, d->d_buf };
	}
}

int trec_fp_gap_rows(Elf *elf, const struct trec_exec_ranges *exec, const struct trec_rows *rows,
		     struct trec_rows *out)
{
	struct gap_ctx g = { .elf = elf, .go = trec_elf_is_go(elf) };
	struct trec_rows pro = { 0 }, fp = { 0 };
	int err = 0;

	read_code(&g);
	if (!g.go)
		err = read_funcs(&g, exec);
	for (size_t x = 0; x < exec->n && !err && (g.go || g.num_funcs); x++) {
		uint64_t at = exec->lo[x];
		size_t i = 0;

		/* rows is sorted and disjoint: walk the holes of [lo, hi) */
		while (i < rows->n && rows->v[i].end <= at)
			i++;
		while (at < exec->hi[x] && !err) {
			uint64_t next = i < rows->n && rows->v[i].start < exec->hi[x] ? rows->v[i].start
										 : exec->hi[x];

			if (next > at)
				err = gap_rows(&g, at, next, &pro, &fp);
			if (i >= rows->n || rows->v[i].start >= exec->hi[x])
				break;
			at = rows->v[i++].end;
		}
	}
	if (!err) {
		trec_rows_normalize(&pro);
		trec_rows_normalize(&fp);
		err = trec_rows_paint(&pro, &fp, out);
	}
	trec_rows_free(&pro);
	trec_rows_free(&fp);
	free(g.funcs);
	return err;
}
