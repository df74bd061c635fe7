/* SPDX-License-Identifier: MIT */
/* test_gopclntab's oracle for inline chains: Go's DWARF, read with libdw. */
#ifndef TREC_GOPCLNTAB_DWARF_H
#define TREC_GOPCLNTAB_DWARF_H

#include <stdbool.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "gopclntab_testlib.h"

#define MAX_FRAMES 16

/* DWARF read with libdw directly: this libdw (0.188) finds no CU for an
 * address without .debug_aranges, which Go does not write, so the units
 * are searched by their ranges. */
struct dwarf_oracle {
	int fd;
	Dwarf *dw;
	size_t ncu;
	Dwarf_Die *cu;
};

static int dwarf_oracle_open(struct dwarf_oracle *o, const char *path)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	memset(o, 0, sizeof(*o));
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0 || !(o->dw = dwarf_begin(o->fd, DWARF_C_READ)))
		return -1;
	while (!dwarf_nextcu(o->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (o->ncu == cap) {
			cap = cap ? 2 * cap : 64;
			o->cu = realloc(o->cu, cap * sizeof(*o->cu));
		}
		if (dwarf_offdie(o->dw, off + hsize, &o->cu[o->ncu]))
			o->ncu++;
		off = next;
	}
	return o->ncu ? 0 : -1;
}

static void dwarf_oracle_close(struct dwarf_oracle *o)
{
	free(o->cu);
	if (o->dw)
		dwarf_end(o->dw);
	if (o->fd >= 0)
		close(o->fd);
}

/* The subprogram holding pc under parent, then the inlined calls holding
 * it, outermost first; lexical blocks are looked through. Returns the
 * chain's length. */
static unsigned holding_chain(Dwarf_Die *parent, uint64_t pc, Dwarf_Die *chain, unsigned n)
{
	Dwarf_Die child;
	if (n >= MAX_FRAMES || dwarf_child(parent, &child))
		return n;
	do {
		int tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram && !n) || tag == DW_TAG_inlined_subroutine) {
			if (dwarf_haspc(&child, pc) == 1) {
				chain[n] = child;
				return holding_chain(&chain[n], pc, chain, n + 1);
			}
		} else if (tag == DW_TAG_lexical_block && dwarf_haspc(&child, pc) == 1) {
			return holding_chain(&child, pc, chain, n);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* DWARF's frames at pc, innermost first, as ours: each function at the
 * location it executes, which for an inlined call's caller is its call
 * site (DW_AT_call_file, DW_AT_call_line). Probes come function by
 * function, so the last unit and subprogram are tried first. */
static unsigned dwarf_frames(struct dwarf_oracle *o, uint64_t pc, char (*fn)[512],
			     char (*at)[1024])
{
	static size_t last_cu;
	static Dwarf_Die last_sub;
	static bool have_sub;
	for (size_t i = 0; i < o->ncu; i++) {
		size_t c = (last_cu + i) % o->ncu;
		Dwarf_Die *cu = &o->cu[c], chain[MAX_FRAMES];
		if (dwarf_haspc(cu, pc) != 1)
			continue;
		unsigned n;
		if (c == last_cu && have_sub && dwarf_haspc(&last_sub, pc) == 1) {
			chain[0] = last_sub;
			n = holding_chain(&chain[0], pc, chain, 1);
		} else {
			n = holding_chain(cu, pc, chain, 0);
		}
		last_cu = c;
		have_sub = n > 0;
		if (n)
			last_sub = chain[0];
		Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
		int line = 0;
		const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		if (l)
			dwarf_lineno(l, &line);
		if (dwarf_getsrcfiles(cu, &files, &nfiles))
			files = NULL;
		for (unsigned k = 0; k < n; k++) {
			Dwarf_Die *d = &chain[n - 1 - k];
			Dwarf_Attribute a;
			Dwarf_Word cf = 0, cl = 0;
			go_norm_name(fn[k], sizeof(fn[k]),
				     dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a)));
			go_loc(at[k], sizeof(at[0]), file, line);
			dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &cf);
			dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &cl);
			file = files && cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : NULL;
			line = (int)cl;
		}
		return n;
	}
	return 0;
}

/* .debug_frame's CFA at pc as an offset from rsp: -1 where no FDE
 * covers pc, -2 for a CFA of another form. libdw hands a register +
 * offset rule over as bregx. */
static int dwarf_cfa_sp_offset(Dwarf_CFI *cfi, uint64_t pc)
{
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t nops;
	int off = -2;

	if (dwarf_cfi_addrframe(cfi, pc, &fr))
		return -1;
	if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1) {
		if (ops[0].atom == DW_OP_bregx && ops[0].number == 7)
			off = (int)ops[0].number2;
		else if (ops[0].atom == DW_OP_breg7)
			off = (int)ops[0].number;
	}
	free(fr);
	return off;
}

/* Whether .debug_frame gives CFA = rsp + 8 at every pc of [lo, hi) it
 * covers (and covers one): the linker writes it from the same pcsp table,
 * through its own encoder. -1 if no pc is covered. */
static int dwarf_cfa_is_sp8(Dwarf_CFI *cfi, uint64_t lo, uint64_t hi)
{
	int covered = 0;

	for (uint64_t pc = lo; pc < hi; pc++) {
		int off = dwarf_cfa_sp_offset(cfi, pc);

		if (off == -1)
			continue;
		if (off != 8)
			return 0;
		covered = 1;
	}
	return covered ? 1 : -1;
}

#endif /* TREC_GOPCLNTAB_DWARF_H */
