// SPDX-License-Identifier: MIT
/*
 * .gopclntab: the header, the function table and the per-function records,
 * with every read bounded by the table (or by a region of the image for
 * what lives outside it, the inline trees).
 *
 * Layout (Go's runtime/symtab.go, pcHeader and _func; debug/gosym):
 *   header: magic u32, 0 u16, quantum u8, ptrsize u8, then uintptr words
 *     1.16: nfunc, nfiles, funcnameOffset, cuOffset, filetabOffset,
 *           pctabOffset, pclnOffset
 *     1.18+: the same with textStart after nfiles
 *   sub-tables, offsets from the header: funcnametab, cutab (u32 file
 *   offsets per compile unit), filetab, pctab, then pclntable, which starts
 *   with the functab (nfunc + 1 entries sorted by pc: {pc uintptr, funcoff
 *   uintptr} in 1.16, {entryoff u32, funcoff u32} from textStart in 1.18+)
 *   and holds each function's _func record at funcoff.
 *   _func: entry (uintptr in 1.16, u32 offset in 1.18+), nameoff, args,
 *   deferreturn, pcsp, pcfile, pcln, npcdata, cuOffset (u32 each),
 *   1.20+: startLine, then funcID, flag, pad, nfuncdata (u8 each); then
 *   npcdata u32 pctab offsets and nfuncdata funcdata slots (1.16: pointers,
 *   pointer-aligned; 1.18+: u32 offsets from moduledata.gofunc).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/gopclntab/gopclntab_internal.h"

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* n-byte little-endian integer at table offset off. */
bool gopcln_read(const struct gopclntab *g, uint64_t off, size_t n, uint64_t *v)
{
	if (off > g->len || n > g->len - off)
		return false;
	*v = le(g->tab + off, n);
	return true;
}

/* n bytes at an address of the image (inline trees live in .rodata). */
bool gopcln_read_vaddr(const struct gopclntab *g, uint64_t vaddr, size_t n, uint64_t *v)
{
	for (size_t i = 0; i < g->nregions; i++) {
		const struct gopcln_region *r = &g->regions[i];
		if (vaddr < r->vaddr || vaddr - r->vaddr > r->len || n > r->len - (vaddr - r->vaddr))
			continue;
		*v = le(r->data + (vaddr - r->vaddr), n);
		return true;
	}
	return false;
}

/* The NUL-terminated string at off in span s, if it ends inside s, is at
 * most GOPCLN_MAX_STRING bytes and holds no control byte (the archive
 * refuses those). */
const char *gopcln_string(const struct gopclntab *g, struct gopcln_span s, uint64_t off)
{
	if (off >= s.hi - s.lo)
		return NULL;
	const uint8_t *p = g->tab + s.lo + off;
	uint64_t room = s.hi - s.lo - off;
	if (room > GOPCLN_MAX_STRING + 1)
		room = GOPCLN_MAX_STRING + 1;
	for (uint64_t i = 0; i < room; i++) {
		if (!p[i])
			return (const char *)p;
		if (p[i] < 0x20 || p[i] == 0x7f)
			return NULL;
	}
	return NULL;
}

static const uint8_t *region_bytes(const struct gopcln_image *img, uint64_t vaddr, uint64_t len)
{
	for (size_t i = 0; i < img->nregions; i++) {
		const struct gopcln_region *r = &img->regions[i];
		if (vaddr >= r->vaddr && vaddr - r->vaddr <= r->len &&
		    len <= r->len - (vaddr - r->vaddr))
			return r->data + (vaddr - r->vaddr);
	}
	return NULL;
}

/* Functab entry i (0..nfunc): its pc and its record's offset. */
static bool functab_entry(const struct gopclntab *g, uint64_t i, uint64_t *pc, uint64_t *funcoff)
{
	uint64_t at = g->pcln.lo + i * g->functab_entsize;
	if (g->layout == 116)
		return gopcln_read(g, at, g->ptrsize, pc) &&
		       gopcln_read(g, at + g->ptrsize, g->ptrsize, funcoff);
	uint64_t off;
	if (!gopcln_read(g, at, 4, &off) || !gopcln_read(g, at + 4, 4, funcoff) ||
	    off > UINT64_MAX - g->text_start)
		return false;
	*pc = g->text_start + off;
	return true;
}

int gopcln_func_record(const struct gopclntab *g, size_t i, struct gopcln_funcrec *r)
{
	uint64_t funcoff, next_off, v;
	if (i >= g->nfunc || !functab_entry(g, i, &r->entry, &funcoff) ||
	    !functab_entry(g, i + 1, &r->end, &next_off) || r->end < r->entry ||
	    funcoff >= g->pcln.hi - g->pcln.lo)
		return -EBADMSG;
	size_t entry_len = g->layout == 116 ? g->ptrsize : 4;
	r->rec = g->pcln.lo + funcoff;
	r->fixed_len = entry_len + (g->layout >= 120 ? 36 : 32) + 4;
	if (!gopcln_read(g, r->rec, entry_len, &v) ||
	    (g->layout == 116 ? v : g->text_start + v) != r->entry)
		return -EBADMSG; /* the record must be the one of this entry */
	uint64_t f = r->rec + entry_len, name, pcsp, pcfile, pcln, npcdata, cu, nfuncdata, flag;
	if (!gopcln_read(g, f, 4, &name) || !gopcln_read(g, f + 12, 4, &pcsp) ||
	    !gopcln_read(g, f + 16, 4, &pcfile) ||
	    !gopcln_read(g, f + 20, 4, &pcln) || !gopcln_read(g, f + 24, 4, &npcdata) ||
	    !gopcln_read(g, f + 28, 4, &cu) || !gopcln_read(g, r->rec + r->fixed_len - 1, 1, &nfuncdata) ||
	    !gopcln_read(g, r->rec + r->fixed_len - 3, 1, &flag) || npcdata > GOPCLN_MAX_PCDATA)
		return -EBADMSG;
	r->nameoff = (uint32_t)name;
	r->pcsp = (uint32_t)pcsp;
	r->pcfile = (uint32_t)pcfile;
	r->pcln = (uint32_t)pcln;
	r->npcdata = (uint32_t)npcdata;
	r->cu_offset = (uint32_t)cu;
	r->nfuncdata = (uint8_t)nfuncdata;
	r->flag = (uint8_t)flag;
	return 0;
}

/* The source path of a pcfile value: cutab[cuOffset + fileno] is its
 * offset in filetab, ~0 when the linker had none. */
const char *gopcln_file_name(const struct gopclntab *g, const struct gopcln_funcrec *r,
			     int32_t fileno)
{
	uint64_t off;
	if (fileno < 0)
		return NULL;
	uint64_t at = g->cutab.lo + ((uint64_t)r->cu_offset + (uint64_t)fileno) * 4;
	if (at + 4 > g->cutab.hi || !gopcln_read(g, at, 4, &off) || off == 0xffffffffu)
		return NULL;
	return gopcln_string(g, g->filetab, off);
}

/* Offset in pctab of pcdata table `table`, 0 if none. */
uint32_t gopcln_pcdata_offset(const struct gopclntab *g, const struct gopcln_funcrec *r,
			      uint32_t table)
{
	uint64_t v;
	if (table >= r->npcdata || !gopcln_read(g, r->rec + r->fixed_len + table * 4u, 4, &v))
		return 0;
	return (uint32_t)v;
}

/* Address of funcdata `index`, 0 if none or unknown. */
uint64_t gopcln_funcdata_vaddr(const struct gopclntab *g, const struct gopcln_funcrec *r,
			       uint32_t index)
{
	uint64_t v, at = r->rec + r->fixed_len + (uint64_t)r->npcdata * 4;
	if (index >= r->nfuncdata)
		return 0;
	if (g->layout == 116) {
		/* Pointers, aligned in memory: the runtime skips 4 bytes when
		 * the slot after the pcdata is not 8-aligned. */
		if (g->ptrsize == 8 && ((g->vaddr + at) & 4))
			at += 4;
		return gopcln_read(g, at + (uint64_t)index * g->ptrsize, g->ptrsize, &v) ? v : 0;
	}
	if (!g->gofunc || !gopcln_read(g, at + (uint64_t)index * 4, 4, &v) || v == 0xffffffffu ||
	    v > UINT64_MAX - g->gofunc)
		return 0;
	return g->gofunc + v;
}

/* ---- the header -------------------------------------------------------- */

static int layout_of(uint32_t magic)
{
	switch (magic) {
	case GOPCLN_MAGIC_116:
		return 116;
	case GOPCLN_MAGIC_118:
		return 118;
	case GOPCLN_MAGIC_120:
		return 120;
	default:
		return 0;
	}
}

/* Header words and sub-table spans; 0 or -EBADMSG. */
static int parse_header(struct gopclntab *g, uint64_t *funcname_off, uint64_t *cu_off)
{
	uint64_t w[8], nwords = g->layout == 116 ? 7 : 8;
	uint64_t magic, pad, quantum, ptrsize;
	if (!gopcln_read(g, 0, 4, &magic) || !gopcln_read(g, 4, 2, &pad) ||
	    !gopcln_read(g, 6, 1, &quantum) || !gopcln_read(g, 7, 1, &ptrsize))
		return -EBADMSG;
	if (pad || (quantum != 1 && quantum != 2 && quantum != 4) || (ptrsize != 4 && ptrsize != 8))
		return -EBADMSG;
	g->quantum = (uint8_t)quantum;
	g->ptrsize = (uint8_t)ptrsize;
	for (uint64_t k = 0; k < nwords; k++)
		if (!gopcln_read(g, 8 + k * ptrsize, ptrsize, &w[k]))
			return -EBADMSG;
	uint64_t hdr = 8 + nwords * ptrsize, *offs = g->layout == 116 ? &w[2] : &w[3];
	g->nfunc = w[0];
	g->text_start = g->layout == 116 ? 0 : w[2];
	/* funcnametab <= cutab <= filetab <= pctab <= pclntable <= end */
	if (offs[0] < hdr || offs[4] > g->len)
		return -EBADMSG;
	for (int k = 0; k < 4; k++)
		if (offs[k] > offs[k + 1])
			return -EBADMSG;
	g->funcnames = (struct gopcln_span){ offs[0], offs[1] };
	g->cutab = (struct gopcln_span){ offs[1], offs[2] };
	g->filetab = (struct gopcln_span){ offs[2], offs[3] };
	g->pctab = (struct gopcln_span){ offs[3], offs[4] };
	g->pcln = (struct gopcln_span){ offs[4], g->len };
	g->functab_entsize = g->layout == 116 ? 2u * ptrsize : 8u;
	if (!g->nfunc || g->nfunc > GOPCLN_MAX_FUNCS ||
	    (g->nfunc + 1) * g->functab_entsize > g->pcln.hi - g->pcln.lo)
		return -EBADMSG;
	*funcname_off = offs[0];
	*cu_off = offs[1];
	return 0;
}

/* Entries must be sorted (lookups bisect them). */
static int check_functab(const struct gopclntab *g)
{
	uint64_t prev = 0, pc, off;
	for (uint64_t i = 0; i <= g->nfunc; i++) {
		if (!functab_entry(g, i, &pc, &off) || (i && pc < prev))
			return -EBADMSG;
		prev = pc;
	}
	return 0;
}

int gopclntab_parse(const struct gopcln_image *img, uint64_t vaddr, size_t len,
		    struct gopclntab **out)
{
	uint64_t magic, funcname_off, cu_off, md_text = 0, md_gofunc = 0;
	const uint8_t *tab = region_bytes(img, vaddr, len);
	*out = NULL;
	if (!tab || len < 8)
		return -ENOENT;
	magic = le(tab, 4);
	if (!layout_of((uint32_t)magic))
		return -ENOENT;
	struct gopclntab *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->tab = tab;
	g->len = len;
	g->vaddr = vaddr;
	g->layout = layout_of((uint32_t)magic);
	g->nregions = img->nregions < GOPCLN_MAX_REGIONS ? img->nregions : GOPCLN_MAX_REGIONS;
	memcpy(g->regions, img->regions, g->nregions * sizeof(*g->regions));
	int err = parse_header(g, &funcname_off, &cu_off);
	if (err)
		goto fail;
	if (g->layout >= 118) {
		gopcln_find_moduledata(g, funcname_off, cu_off, &md_text, &md_gofunc);
		g->gofunc = md_gofunc;
		/* Go 1.26 writes 0 here; its moduledata has the real base. */
		if (!g->text_start)
			g->text_start = md_text ? md_text : img->text_hint;
	}
	err = check_functab(g);
	if (err)
		goto fail;
	/* Whole-table walks decode each function's tables once; a hostile
	 * table that points every function at one long run stops here. */
	g->budget = 64 * (g->pctab.hi - g->pctab.lo) + (1u << 24);
	*out = g;
	return 0;
fail:
	free(g);
	return err;
}

void gopclntab_free(struct gopclntab *g)
{
	if (!g)
		return;
	free(g->files.v);
	free(g->lines.v);
	free(g->inl.v);
	free(g->sp.v);
	free(g);
}

int gopclntab_layout(const struct gopclntab *g)
{
	return g->layout;
}

size_t gopclntab_num_funcs(const struct gopclntab *g)
{
	return (size_t)g->nfunc;
}

void gopclntab_text_range(const struct gopclntab *g, uint64_t *lo, uint64_t *hi)
{
	uint64_t off;
	if (!functab_entry(g, 0, lo, &off) || !functab_entry(g, g->nfunc, hi, &off))
		*lo = *hi = 0;
}

bool gopclntab_has_inline_trees(const struct gopclntab *g)
{
	return g->layout == 116 || g->gofunc != 0;
}

int gopclntab_func(const struct gopclntab *g, size_t i, struct gopcln_func *f)
{
	struct gopcln_funcrec r;
	int err = gopcln_func_record(g, i, &r);
	if (err)
		return err;
	f->entry = r.entry;
	f->end = r.end;
	f->name = gopcln_string(g, g->funcnames, r.nameoff);
	f->flag = r.flag;
	return 0;
}

long gopclntab_find(const struct gopclntab *g, uint64_t pc)
{
	uint64_t lo = 0, hi = g->nfunc, epc, off; /* last entry <= pc in [lo, hi) */
	if (!functab_entry(g, 0, &epc, &off) || pc < epc ||
	    !functab_entry(g, g->nfunc, &epc, &off) || pc >= epc)
		return -1;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (!functab_entry(g, mid, &epc, &off))
			return -1;
		if (epc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}
