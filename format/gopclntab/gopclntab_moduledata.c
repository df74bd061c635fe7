// SPDX-License-Identifier: MIT
/*
 * runtime.firstmoduledata, found without symbols: Go 1.18+ stores the
 * inline trees (funcdata) at offsets from moduledata.gofunc, and Go 1.26
 * leaves the header's textStart 0, so both come from the module data.
 *
 * It is the one pointer-aligned spot of (writable) data whose first word
 * points at the pclntab header and whose next slices are the header's
 * funcnametab and cutab. Its words (runtime/symtab.go, moduledata):
 *   0 pcHeader, 1-3 funcnametab, 4-6 cutab, 7-9 filetab, 10-12 pctab,
 *   13-15 pclntable, 16-18 ftab, 19 findfunctab, 20 minpc, 21 maxpc,
 *   22 text, 23 etext, 24-31 noptrdata..enoptrbss,
 *   1.18/1.19: 32 end, 33 gcdata, 34 gcbss, 35 types, 36 etypes, 37 rodata, 38 gofunc
 *   1.20+:     covctrs/ecovctrs at 32-33 push the rest by two: 40 gofunc
 */
#include "format/gopclntab/gopclntab_internal.h"

enum { MD_FUNCNAMETAB = 1, MD_CUTAB = 4, MD_TEXT = 22, MD_GOFUNC_118 = 38, MD_GOFUNC_120 = 40 };

/* Scanning stops after this many bytes (a table whose module data is
 * not found costs this much, times the header candidates tried). */
#define MODULEDATA_SCAN_MAX (64u << 20)

static uint64_t word(const uint8_t *p, unsigned ptrsize, unsigned k)
{
	uint64_t v = 0;
	for (unsigned i = ptrsize; i-- > 0;)
		v = v << 8 | p[k * ptrsize + i];
	return v;
}

static bool in_image(const struct gopclntab *g, uint64_t vaddr)
{
	uint64_t v;
	return vaddr && gopcln_read_vaddr(g, vaddr, 1, &v);
}

void gopcln_find_moduledata(const struct gopclntab *g, uint64_t funcname_off,
			    uint64_t cu_off, uint64_t *text, uint64_t *gofunc)
{
	unsigned ps = g->ptrsize, gofunc_word = g->layout >= 120 ? MD_GOFUNC_120 : MD_GOFUNC_118;
	uint64_t need = (uint64_t)(gofunc_word + 1) * ps, scanned = 0;
	*text = *gofunc = 0;
	/* Writable data first (.noptrdata); then the rest, in case a
	 * release keeps it read-only after relocation (Go 1.26's .go.module). */
	for (size_t k = 0; k < 2 * g->nregions; k++) {
		const struct gopcln_region *r = &g->regions[k % g->nregions];
		if (r->writable != (k < g->nregions) || r->len < need)
			continue;
		/* First pointer-aligned vaddr of the region. */
		uint64_t skip = (ps - (r->vaddr & (ps - 1))) & (ps - 1);
		for (uint64_t off = skip; off + need <= r->len; off += ps) {
			if (++scanned > MODULEDATA_SCAN_MAX / ps)
				return;
			const uint8_t *p = r->data + off;
			if (word(p, ps, 0) != g->vaddr ||
			    word(p, ps, MD_FUNCNAMETAB) != g->vaddr + funcname_off ||
			    word(p, ps, MD_CUTAB) != g->vaddr + cu_off)
				continue;
			*text = word(p, ps, MD_TEXT);
			uint64_t gf = word(p, ps, gofunc_word);
			*gofunc = in_image(g, gf) ? gf : 0;
			return;
		}
	}
}
