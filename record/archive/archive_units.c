// SPDX-License-Identifier: MIT
/*
 * Every CU of a file, kept apart, for the symbol cache: level sampled
 * collects the CUs that dwfl_module_addrdie gives for the sampled
 * addresses, in the order the addresses first select them, and which rows
 * win where two CUs describe the same bytes (COMDAT copies) depends on
 * that order. So the cache keeps each CU's rows as collected and the map
 * from address to CU, and replays exactly that collection.
 *
 * The map is libdwfl's own answer: it changes only at the start or end of
 * an address range (libdwfl gives an address the CU of the last range
 * starting at or below it, up to the end of the last range; elfutils
 * 0.188 takes the ranges from .debug_aranges, later ones from the CUs),
 * so asking dwfl_module_addrdie at each start, start + 1, end and end + 1
 * of both gives it whole. The addresses of the run that collects an entry are
 * checked against it too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "format/containers/vec.h"
#include "record/archive/archive_dwfl.h"
#include "upper_bound.h"

uint32_t arc_unit_of(const struct arc_units *u, uint64_t addr)
{
	size_t k = TREC_UPPER_BOUND(u->runs, u->nruns, start, addr);
	return k ? u->runs[k - 1].unit : UINT32_MAX;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Unit index of the CU at offset off (offs sorted with their index). */
struct cu_off {
	uint64_t off;
	uint32_t unit;
};

static int cmp_off(const void *a, const void *b)
{
	return cmp_u64(a, b);
}

static uint32_t unit_at(Dwfl_Module *mod, uint64_t addr, GElf_Addr bias,
			const struct cu_off *offs, size_t n, int *bad)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr + bias, &cubias);
	if (!cu)
		return UINT32_MAX;
	struct cu_off key = { dwarf_dieoffset(cu), 0 };
	const struct cu_off *f = bsearch(&key, offs, n, sizeof(*offs), cmp_off);
	if (!f)
		*bad = 1; /* a CU dwfl_module_nextcu did not list */
	return f ? f->unit : UINT32_MAX;
}

/* One unit: its CU's rows, appended after the previous units'. */
static int add_unit(struct arc_units *u, Dwarf_Die *cu, Dwarf_Addr cubias, GElf_Addr bias)
{
	struct arc_builder *b = &u->b;
	size_t lines0 = b->t.num_lines, ndepth0 = b->t.num_depths;
	size_t *before = calloc(ndepth0 + 1, sizeof(*before));
	uint32_t ninls = 0;

	if (!before)
		return -ENOMEM;
	for (size_t d = 0; d < ndepth0; d++)
		before[d] = b->t.depths[d].num;
	arc_collect_cu(b, cu, cubias, bias);
	for (size_t d = 0; d < b->t.num_depths && !b->oom; d++) {
		struct trec_arc_depth *dp = &b->t.depths[d];
		for (size_t i = d < ndepth0 ? before[d] : 0; i < dp->num; i++, ninls++) {
			if (TREC_GROW(u->inls, u->cap_inls, u->ninls + 1, 256)) {
				b->oom = 1;
				break;
			}
			u->inls[u->ninls++] = (struct arc_unit_inline){
				dp->v[i].lo, dp->v[i].hi, (uint32_t)d + 1, dp->v[i].name,
				dp->v[i].call_file, dp->v[i].call_line };
		}
	}
	free(before);
	if (b->oom || TREC_GROW(u->units, u->cap_units, u->nunits + 1, 64))
		return -ENOMEM;
	u->units[u->nunits++] = (struct arc_unit){ (uint32_t)(b->t.num_lines - lines0), ninls };
	return 0;
}

/* Where libdwfl's answer may change: each range's start, start + 1 (two
 * ranges of different CUs can start at one address, COMDAT copies: its
 * binary search may answer either at that very address, and the last one
 * past it), end and end + 1. */
struct points {
	uint64_t *v;
	size_t n, cap;
};

static int add_range(struct points *p, uint64_t lo, uint64_t hi)
{
	if (TREC_GROW(p->v, p->cap, p->n + 4, 1024))
		return -ENOMEM;
	p->v[p->n++] = lo;
	p->v[p->n++] = lo + 1;
	p->v[p->n++] = hi;
	p->v[p->n++] = hi + 1;
	return 0;
}

/* The run map from libdwfl's answers at every boundary of .debug_aranges
 * (what elfutils 0.188 maps by) and of the CUs' own ranges (what later
 * versions map by), added to pts. */
static int map_runs(struct arc_units *u, Dwfl_Module *mod, GElf_Addr bias,
		    const struct cu_off *offs, size_t n, struct points *pp)
{
	Dwarf_Addr dbias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &dbias);
	Dwarf_Aranges *ar;
	size_t nar = 0, np;
	int bad = 0;

	if (dw && dwarf_getaranges(dw, &ar, &nar))
		nar = 0;
	for (size_t i = 0; i < nar; i++) {
		Dwarf_Addr start;
		Dwarf_Word len;
		Dwarf_Arange *a = dwarf_onearange(ar, i);
		if (a && !dwarf_getarangeinfo(a, &start, &len, NULL) &&
		    add_range(pp, start + dbias - bias, start + dbias - bias + len))
			return -ENOMEM;
	}
	uint64_t *pts = pp->v;
	np = pp->n;
	qsort(pts, np, sizeof(*pts), cmp_u64);
	for (size_t i = 0; i < np; i++) {
		if (i && pts[i] == pts[i - 1])
			continue;
		uint32_t unit = unit_at(mod, pts[i], bias, offs, n, &bad);
		if (u->nruns && u->runs[u->nruns - 1].unit == unit)
			continue;
		if (TREC_GROW(u->runs, u->cap_runs, u->nruns + 1, 256))
			return -ENOMEM;
		u->runs[u->nruns++] = (struct arc_unit_run){ pts[i], unit };
	}
	return bad ? -ENOTSUP : 0;
}

int arc_collect_units(struct arc_units *u, const char *path, const uint8_t *bid,
		      size_t bid_len, const uint64_t *addrs, size_t naddrs)
{
	Dwfl *dwfl;
	int err = 0, bad = 0;
	Dwfl_Module *mod = arc_open(path, &dwfl, &err);
	GElf_Addr bias = 0;
	Dwarf_Addr cubias;
	Dwarf_Die *cu = NULL;
	struct cu_off *offs = NULL;
	size_t cap = 0;
	const unsigned char *bits;
	GElf_Addr bid_vaddr;
	struct points pts = { 0 };

	if (!mod)
		goto out;
	if (!dwfl_module_getelf(mod, &bias)) {
		err = -ENOEXEC;
		goto out;
	}
	int n = dwfl_module_build_id(mod, &bits, &bid_vaddr);
	if (bid_len && (n != (int)bid_len || memcmp(bits, bid, bid_len))) {
		err = -ESTALE;
		goto out;
	}
	while (!err && (cu = dwfl_module_nextcu(mod, cu, &cubias))) {
		if (TREC_GROW(offs, cap, u->nunits + 1, 256)) {
			err = -ENOMEM;
			break;
		}
		offs[u->nunits] = (struct cu_off){ dwarf_dieoffset(cu), (uint32_t)u->nunits };
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while (!err && (off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0)
			err = add_range(&pts, lo + cubias - bias, hi + cubias - bias);
		if (!err)
			err = add_unit(u, cu, cubias, bias);
	}
	u->has_cu = u->nunits > 0;
	if (!err && offs) {
		qsort(offs, u->nunits, sizeof(*offs), cmp_off);
		for (size_t i = 1; i < u->nunits; i++)
			if (offs[i].off == offs[i - 1].off)
				err = -ENOTSUP;
	}
	if (!err && offs)
		err = map_runs(u, mod, bias, offs, u->nunits, &pts);
	for (size_t i = 0; !err && i < naddrs; i++)
		if (arc_unit_of(u, addrs[i]) != unit_at(mod, addrs[i], bias, offs, u->nunits, &bad) ||
		    bad)
			err = -ENOTSUP;
out:
	free(offs);
	free(pts.v);
	dwfl_end(dwfl);
	return err;
}
