// SPDX-License-Identifier: MIT
/*
 * .gopclntab layouts this machine's Go (1.19) cannot produce: tables of
 * each layout (1.16, 1.18, 1.20, and 1.20 with the header's textStart 0 as
 * Go 1.26 writes it) written here from the layout Go's runtime/symtab.go
 * and runtime/symtabinl.go describe, with a two-deep inlined call, then
 * read back. Then the same tables damaged: every truncation and thousands
 * of random byte changes must parse or fail cleanly (this runs under ASan)
 * and whatever parses must walk and look up within its bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/gopclntab/gopclntab.h"
#include "unit_check.h"

#define TAB_VADDR 0x10000ull   /* read-only region: the table, then the inline tree */
#define DATA_VADDR 0x30000ull  /* writable region: moduledata */
#define TEXT 0x400000ull
#define TREE_OFF 0x8000u       /* inline tree, from TAB_VADDR */
#define GOFUNC (TAB_VADDR + 0x7000u)
#define ROUNDS 20000           /* damaged copies per layout */

struct buf {
	uint8_t b[0x9000];
	size_t len;
};

static void put(struct buf *o, size_t at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o->b[at + i] = (uint8_t)(v >> (8 * i));
	if (at + n > o->len)
		o->len = at + n;
}

static void append(struct buf *o, uint64_t v, size_t n)
{
	put(o, o->len, v, n);
}

static void uvarint(struct buf *o, uint32_t v)
{
	do {
		append(o, (v & 0x7f) | (v > 0x7f ? 0x80 : 0), 1);
		v >>= 7;
	} while (v);
}

/* A pc-value table of (value, length in bytes) runs; returns its offset
 * in pctab (never 0: pctab starts with a pad byte). */
static uint32_t pctable(struct buf *pctab, const int32_t (*runs)[2], size_t n)
{
	uint32_t off = (uint32_t)pctab->len;
	int32_t prev = -1;
	for (size_t i = 0; i < n; i++) {
		int32_t d = runs[i][0] - prev;
		uvarint(pctab, d < 0 ? ((uint32_t)~d << 1) | 1 : (uint32_t)d << 1);
		uvarint(pctab, (uint32_t)runs[i][1]);
		prev = runs[i][0];
	}
	append(pctab, 0, 1);
	return off;
}

/* The program: main.a [0, 0x40) without inlining; main.b [0x40, 0xa0)
 * where main.c is inlined at b's pc 0x08 (a.go:20) over [0x10, 0x40), and
 * main.d into c at b's pc 0x18 (b.go:31) over [0x20, 0x30); main.e
 * [0xa0, 0xc0) without tables. */
static const char *const names[] = { "main.a", "main.b", "main.c", "main.d", "main.e" };
static const char *const files[] = { "/src/a.go", "/src/b.go", "/src/c.go" };

struct image {
	struct buf tab, data;
	size_t table_len;
	struct gopcln_region regions[2];
	struct gopcln_image img;
};

static void build(struct image *im, int layout, int zero_text_start)
{
	struct buf names_tab = { .len = 0 }, cutab = { .len = 0 }, filetab = { .len = 0 },
		    pctab = { .len = 0 }, funcs = { .len = 0 };
	uint32_t nameoff[5], fileoff[3];
	const int ps = 8, v120 = layout >= 120;
	memset(im, 0, sizeof(*im));
	for (int i = 0; i < 5; i++) {
		nameoff[i] = (uint32_t)names_tab.len;
		memcpy(names_tab.b + names_tab.len, names[i], strlen(names[i]) + 1);
		names_tab.len += strlen(names[i]) + 1;
	}
	for (int i = 0; i < 3; i++) {
		fileoff[i] = (uint32_t)filetab.len;
		memcpy(filetab.b + filetab.len, files[i], strlen(files[i]) + 1);
		filetab.len += strlen(files[i]) + 1;
		append(&cutab, fileoff[i], 4);
	}
	append(&pctab, 0, 1);
	static const int32_t a_file[][2] = { { 0, 0x40 } }, a_line[][2] = { { 10, 0x10 }, { 11, 0x30 } };
	static const int32_t b_file[][2] = { { 0, 0x10 }, { 1, 0x10 }, { 2, 0x10 }, { 1, 0x10 }, { 0, 0x20 } };
	static const int32_t b_line[][2] = { { 20, 0x10 }, { 30, 0x08 }, { 31, 0x08 },
					     { 40, 0x10 }, { 32, 0x10 }, { 21, 0x20 } };
	static const int32_t b_inl[][2] = { { -1, 0x10 }, { 0, 0x10 }, { 1, 0x10 }, { 0, 0x10 }, { -1, 0x20 } };
	uint32_t tabs[2][3] = {
		{ pctable(&pctab, a_file, 1), pctable(&pctab, a_line, 2), 0 },
		{ pctable(&pctab, b_file, 5), pctable(&pctab, b_line, 6), pctable(&pctab, b_inl, 5) },
	};
	/* Header, then the sub-tables in order, then functab and records. */
	size_t hdr = 8 + (size_t)(layout == 116 ? 7 : 8) * ps;
	size_t o_names = hdr, o_cu = o_names + names_tab.len, o_file = o_cu + cutab.len;
	size_t o_pc = o_file + filetab.len, o_pcln = o_pc + pctab.len;
	size_t entsize = layout == 116 ? 16 : 8, fixed = (layout == 116 ? 8 : 4) + (v120 ? 40 : 36);
	const uint64_t entry[4] = { TEXT, TEXT + 0x40, TEXT + 0xa0, TEXT + 0xc0 };
	const uint32_t fname[3] = { nameoff[0], nameoff[1], nameoff[4] };
	size_t rec = 4 * entsize;
	for (int f = 0; f < 3; f++) {
		rec = (rec + 7) & ~(size_t)7;
		size_t at = rec, ent = layout == 116 ? 8 : 4;
		put(&funcs, (size_t)f * entsize, layout == 116 ? entry[f] : entry[f] - TEXT, ent);
		put(&funcs, (size_t)f * entsize + ent, at, ent);
		put(&funcs, at, layout == 116 ? entry[f] : entry[f] - TEXT, ent);
		uint32_t npcdata = f == 1 ? 3 : 0, nfuncdata = f == 1 ? 4 : 0;
		const uint32_t fields[8] = { fname[f], 0, 0, 0, f < 2 ? tabs[f][0] : 0,
					     f < 2 ? tabs[f][1] : 0, npcdata, 0 };
		for (int k = 0; k < 8; k++)
			put(&funcs, at + ent + 4u * k, fields[k], 4);
		if (v120)
			put(&funcs, at + ent + 32, 5, 4); /* startLine */
		put(&funcs, at + fixed - 1, nfuncdata, 1);
		size_t p = at + fixed;
		for (uint32_t k = 0; k < npcdata; k++, p += 4)
			put(&funcs, p, k == 2 ? tabs[1][2] : 0, 4);
		for (uint32_t k = 0; k < nfuncdata; k++) {
			if (layout == 116) { /* pointers, 8-aligned in memory */
				if ((TAB_VADDR + o_pcln + p) & 4)
					p += 4;
				put(&funcs, p, k == 3 ? TAB_VADDR + TREE_OFF : 0, 8);
				p += 8;
			} else {
				put(&funcs, p, k == 3 ? TAB_VADDR + TREE_OFF - GOFUNC : 0xffffffffu, 4);
				p += 4;
			}
		}
		rec = p > at + fixed ? p : at + fixed;
	}
	put(&funcs, 3 * entsize, layout == 116 ? entry[3] : entry[3] - TEXT, layout == 116 ? 8 : 4);

	struct buf *t = &im->tab;
	put(t, 0, layout == 116 ? GOPCLN_MAGIC_116 : v120 ? GOPCLN_MAGIC_120 : GOPCLN_MAGIC_118, 4);
	put(t, 4, 0, 2);
	put(t, 6, 1, 1);
	put(t, 7, ps, 1);
	uint64_t words[8] = { 3, 3 }, *w = words + 2;
	if (layout != 116)
		*w++ = zero_text_start ? 0 : TEXT;
	*w++ = o_names;
	*w++ = o_cu;
	*w++ = o_file;
	*w++ = o_pc;
	*w++ = o_pcln;
	for (int k = 0; k < (layout == 116 ? 7 : 8); k++)
		put(t, 8 + 8u * k, words[k], 8);
	memcpy(t->b + o_names, names_tab.b, names_tab.len);
	memcpy(t->b + o_cu, cutab.b, cutab.len);
	memcpy(t->b + o_file, filetab.b, filetab.len);
	memcpy(t->b + o_pc, pctab.b, pctab.len);
	memcpy(t->b + o_pcln, funcs.b, funcs.len);
	size_t table_len = o_pcln + funcs.len;
	/* Inline tree: node 0 = c called at b+0x08, node 1 = d at b+0x18. */
	for (int n = 0; n < 2; n++) {
		size_t at = TREE_OFF + (size_t)n * (v120 ? 16 : 20);
		uint32_t name = nameoff[2 + n], ppc = n ? 0x18 : 0x08;
		if (v120) {
			put(t, at + 4, name, 4);
			put(t, at + 8, ppc, 4);
			put(t, at + 12, 1, 4);
		} else {
			put(t, at, n ? 0 : 0xffff, 2); /* parent */
			put(t, at + 12, name, 4);
			put(t, at + 16, ppc, 4);
		}
	}
	/* moduledata (read for 1.18+): pcHeader, funcnametab, cutab, text, gofunc */
	put(&im->data, 0x10, TAB_VADDR, 8);
	put(&im->data, 0x10 + 8, TAB_VADDR + o_names, 8);
	put(&im->data, 0x10 + 32, TAB_VADDR + o_cu, 8);
	put(&im->data, 0x10 + 22 * 8, TEXT, 8);
	put(&im->data, 0x10 + (v120 ? 40 : 38) * 8, GOFUNC, 8);
	put(&im->data, 0x10 + 48 * 8, 0, 8);
	im->regions[0] = (struct gopcln_region){ TAB_VADDR, im->tab.b, im->tab.len, false };
	im->regions[1] = (struct gopcln_region){ DATA_VADDR, im->data.b, im->data.len, true };
	im->img = (struct gopcln_image){ im->regions, 2, 0 };
	im->table_len = table_len;
}

/* ---- reading back -------------------------------------------------------- */

struct seen {
	char rows[16][64];
	size_t nrows;
	char calls[8][96];
	size_t ncalls;
	uint64_t entry, end, last;
	int bad; /* an address outside the function, or going back */
};

static void on_line(void *ctx, uint64_t addr, const char *file, uint32_t line)
{
	struct seen *s = ctx;
	if (addr < s->entry || addr > s->end || addr < s->last)
		s->bad = 1;
	s->last = addr;
	if (s->nrows < 16)
		snprintf(s->rows[s->nrows++], sizeof(s->rows[0]), "%llx %s:%u",
			 (unsigned long long)(addr - s->entry), file ? file : "-", line);
}

static void on_inlined(void *ctx, unsigned depth, uint64_t lo, uint64_t hi, const char *name,
		       const char *call_file, uint32_t call_line)
{
	struct seen *s = ctx;
	if (!depth || depth > GOPCLN_MAX_DEPTH || lo >= hi || lo < s->entry || hi > s->end || !name)
		s->bad = 1;
	if (s->ncalls < 8)
		snprintf(s->calls[s->ncalls++], sizeof(s->calls[0]), "%u %llx-%llx %s %s:%u", depth,
			 (unsigned long long)(lo - s->entry), (unsigned long long)(hi - s->entry),
			 name, call_file ? call_file : "-", call_line);
}

static int walk(struct gopclntab *g, size_t i, struct seen *s)
{
	struct gopcln_func f;
	const struct gopcln_visitor v = { .ctx = s, .line = on_line, .inlined = on_inlined };
	memset(s, 0, sizeof(*s));
	if (gopclntab_func(g, i, &f))
		return -EBADMSG;
	s->entry = s->last = f.entry;
	s->end = f.end;
	return gopclntab_walk_func(g, i, &v);
}

/* The frames at pc as "name file:line|..." */
static void frames_at(struct gopclntab *g, uint64_t pc, char *out, size_t n)
{
	struct gopcln_frame fr[8];
	int k = gopclntab_lookup(g, pc, fr, 8);
	size_t o = 0;
	out[0] = 0;
	for (int j = 0; j < k && o < n; j++)
		o += (size_t)snprintf(out + o, n - o, "%s%s %s:%u", j ? "|" : "",
				      fr[j].function ? fr[j].function : "-",
				      fr[j].file ? fr[j].file : "-", fr[j].line);
}

static int same_list(char (*got)[64], size_t n, const char *const *want, size_t m)
{
	if (n != m)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(got[i], want[i]))
			return 0;
	return 1;
}

static void check_layout(int layout, int zero_text_start)
{
	static struct image im;
	struct gopclntab *g = NULL;
	char label[160], got[512];
	build(&im, layout, zero_text_start);
	snprintf(label, sizeof(label), "gopclntab layout %d%s", layout,
		 zero_text_start ? " (textStart 0, from moduledata)" : "");
	int rc = gopclntab_parse(&im.img, TAB_VADDR, im.table_len, &g);
	char name[256];
	snprintf(name, sizeof(name), "%s: parses, 3 functions", label);
	CHECK(name, !rc && gopclntab_layout(g) == layout && gopclntab_num_funcs(g) == 3 &&
			    gopclntab_has_inline_trees(g));
	if (rc)
		return;
	struct gopcln_func f[3];
	int names_ok = 1;
	for (size_t i = 0; i < 3; i++)
		names_ok &= !gopclntab_func(g, i, &f[i]) && f[i].name &&
			    !strcmp(f[i].name, names[i == 2 ? 4 : i]);
	snprintf(name, sizeof(name), "%s: entries and names", label);
	CHECK(name, names_ok && f[0].entry == TEXT && f[1].entry == TEXT + 0x40 &&
			    f[2].entry == TEXT + 0xa0 && f[2].end == TEXT + 0xc0);

	static const char *const b_rows[] = { "0 /src/a.go:20", "10 /src/b.go:30", "18 /src/b.go:31",
					      "20 /src/c.go:40", "30 /src/b.go:32", "40 /src/a.go:21",
					      "60 -:0" };
	static const char *const b_calls[] = { "1 10-40 main.c /src/a.go:20",
					       "2 20-30 main.d /src/b.go:31" };
	static const char *const a_rows[] = { "0 /src/a.go:10", "10 /src/a.go:11", "40 -:0" };
	static const char *const e_rows[] = { "0 -:0" };
	struct seen s;
	int ok = !walk(g, 1, &s) && !s.bad && same_list(s.rows, s.nrows, b_rows, 7);
	/* in any order: a call is reported when it ends */
	ok = ok && s.ncalls == 2 &&
	     ((!strcmp(s.calls[0], b_calls[0]) && !strcmp(s.calls[1], b_calls[1])) ||
	      (!strcmp(s.calls[1], b_calls[0]) && !strcmp(s.calls[0], b_calls[1])));
	if (!ok)
		for (size_t i = 0; i < s.nrows || i < s.ncalls; i++)
			printf("  %s | %s\n", i < s.nrows ? s.rows[i] : "", i < s.ncalls ? s.calls[i] : "");
	snprintf(name, sizeof(name), "%s: main.b's rows and its two-deep inlined calls", label);
	CHECK(name, ok);
	ok = !walk(g, 0, &s) && !s.bad && same_list(s.rows, s.nrows, a_rows, 3) && !s.ncalls &&
	     !walk(g, 2, &s) && same_list(s.rows, s.nrows, e_rows, 1);
	snprintf(name, sizeof(name), "%s: rows of functions without inlining or tables", label);
	CHECK(name, ok);

	static const struct { uint64_t pc; const char *want; } at[] = {
		{ TEXT + 0x40 + 0x24,
		  "main.d /src/c.go:40|main.c /src/b.go:31|main.b /src/a.go:20" },
		{ TEXT + 0x40 + 0x34, "main.c /src/b.go:32|main.b /src/a.go:20" },
		{ TEXT + 0x40 + 0x44, "main.b /src/a.go:21" },
		{ TEXT + 0x11, "main.a /src/a.go:11" },
		{ TEXT + 0xa5, "main.e -:0" },
		{ TEXT + 0xc0, "" },
		{ TEXT - 1, "" },
	};
	ok = 1;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		frames_at(g, at[i].pc, got, sizeof(got));
		if (strcmp(got, at[i].want)) {
			printf("  %#llx: %s, want %s\n", (unsigned long long)at[i].pc, got, at[i].want);
			ok = 0;
		}
	}
	snprintf(name, sizeof(name), "%s: frames at pcs, innermost first", label);
	CHECK(name, ok);
	gopclntab_free(g);
}

/* ---- damaged tables ------------------------------------------------------- */

/* Walks and looks up everything a parsed table offers; 0 if anything
 * broke a bound. */
static int exercise(struct gopclntab *g, uint64_t *seed)
{
	size_t n = gopclntab_num_funcs(g);
	uint64_t lo, hi;
	gopclntab_text_range(g, &lo, &hi);
	for (size_t i = 0; i < n && i < 64; i++) {
		struct seen s;
		int rc = walk(g, i, &s);
		if (s.bad || (rc && rc != -EBADMSG && rc != -E2BIG))
			return 0;
	}
	for (int k = 0; k < 16; k++) {
		struct gopcln_frame fr[GOPCLN_MAX_DEPTH + 1];
		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t pc = hi > lo ? lo + (*seed >> 20) % (hi - lo + 2) : lo + k;
		int m = gopclntab_lookup(g, pc, fr, GOPCLN_MAX_DEPTH + 1);
		if (m > (int)GOPCLN_MAX_DEPTH + 1)
			return 0;
		for (int j = 0; j < m; j++)
			if ((fr[j].function && strlen(fr[j].function) > GOPCLN_MAX_STRING) ||
			    (fr[j].file && strlen(fr[j].file) > GOPCLN_MAX_STRING))
				return 0;
	}
	return 1;
}

/* Parses a copy of the (damaged) regions sized exactly, so ASan sees any
 * read past them. 1: parsed and exercised; 0: refused; -1: broke a bound. */
static int try_damaged(const struct image *im, const uint8_t *tab, size_t tab_len,
		       size_t parse_len, uint64_t *seed)
{
	uint8_t *t = malloc(tab_len ? tab_len : 1), *d = malloc(im->data.len);
	memcpy(t, tab, tab_len);
	memcpy(d, im->data.b, im->data.len);
	struct gopcln_region r[2] = { { TAB_VADDR, t, tab_len, false },
				      { DATA_VADDR, d, im->data.len, true } };
	struct gopcln_image img = { r, 2, TEXT };
	struct gopclntab *g = NULL;
	int rc = gopclntab_parse(&img, TAB_VADDR, parse_len, &g), res;
	if (!rc)
		res = g && exercise(g, seed) ? 1 : -1;
	else
		res = !g && (rc == -ENOENT || rc == -EBADMSG) ? 0 : -1;
	gopclntab_free(g);
	free(t);
	free(d);
	return res;
}

static void check_damage(int layout)
{
	static struct image im;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)layout;
	size_t parsed = 0, refused = 0, broke = 0;
	build(&im, layout, 0);
	for (size_t len = 0; len <= im.table_len; len++) {
		int r = try_damaged(&im, im.tab.b, len, len, &seed);
		parsed += r == 1, refused += r == 0, broke += r < 0;
	}
	static uint8_t copy[sizeof(im.tab.b)];
	for (int round = 0; round < ROUNDS; round++) {
		memcpy(copy, im.tab.b, im.tab.len);
		int changes = 1 + round % 4;
		for (int c = 0; c < changes; c++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* mostly the table; sometimes the inline tree */
			size_t at = (seed >> 7) % (round & 1 ? im.table_len : im.tab.len);
			copy[at] = round % 3 ? (uint8_t)(seed >> 40) : copy[at] ^ (uint8_t)(1u << (seed >> 61));
		}
		int r = try_damaged(&im, copy, im.tab.len, im.table_len, &seed);
		parsed += r == 1, refused += r == 0, broke += r < 0;
	}
	char name[200];
	snprintf(name, sizeof(name),
		 "gopclntab layout %d damaged: %zu truncations and %d changed tables: %zu parsed "
		 "and walked within bounds, %zu refused, %zu broke a bound",
		 layout, im.table_len + 1, ROUNDS, parsed, refused, broke);
	CHECK(name, broke == 0 && parsed > 0 && refused > 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_layout(116, 0);
	check_layout(118, 0);
	check_layout(120, 0);
	check_layout(120, 1);
	check_damage(116);
	check_damage(118);
	check_damage(120);
	return failures ? 1 : 0;
}
