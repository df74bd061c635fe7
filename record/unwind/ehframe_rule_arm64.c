// SPDX-License-Identifier: MIT
/*
 * One aarch64 CFI table row (as computed by libdw) -> one trec unwind rule.
 *
 * What GCC and clang emit for aarch64 (DWARF registers: x29 = 29, x30 =
 * 30 the return address column, sp = 31):
 *   CIE:       def_cfa sp+0, x30 not described (libdw's ABI default:
 *              same value, i.e. the return address is still in LR)
 *   prologue:  def_cfa_offset N; offset x29 at cfa-N, x30 at cfa-N+8
 *              (stp x29, x30, [sp, #-N]!), then maybe def_cfa_register x29
 *   pac-ret:   negate_ra_state, which changes no location (the BPF side
 *              strips the signature from every return address)
 *   _start:    undefined x30 (the outermost frame)
 * Anything else (expressions, x30 in another register) is UNSUPPORTED,
 * so BPF stops with an error frame instead of guessing.
 */
#include <dwarf.h>
#include <gelf.h>
#include "record/unwind/ehframe.h"

enum { A64_X29 = 29, A64_X30 = 30, A64_SP = 31 };

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

bool trec_elf_is_arm64(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_machine == EM_AARCH64;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* cfa = sp|x29 + offset, the only CFA rules aarch64 compilers emit. */
static bool cfa_rule(Dwarf_Frame *frame, struct trec_unwind_info *ui)
{
	Dwarf_Op *ops;
	size_t n;
	unsigned reg;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n != 1 || !trec_op_breg(&ops[0], &reg, &off) ||
	    !fits_s32(off))
		return false;
	if (reg == A64_SP)
		ui->cfa_reg = TREC_REG_SP;
	else if (reg == A64_X29)
		ui->cfa_reg = TREC_REG_FP;
	else
		return false;
	ui->cfa_param = (int32_t)off;
	return true;
}

bool trec_rule_from_frame_arm64(Dwarf_Frame *frame, struct trec_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	int r = trec_rule_start(frame, A64_X30, row, mem, &ops, &n);
	if (r)
		return r > 0;
	if (n == 0 && ops == NULL) {
		row->info.ra_rule = TREC_RA_LR;
	} else if (trec_op_at_cfa(ops, n, &off) && fits_s32(off)) {
		row->info.ra_rule = TREC_RA_AT_CFA;
		row->info.ra_param = (int32_t)off;
	} else {
		return trec_rule_unsupported(row);
	}
	if (!cfa_rule(frame, &row->info))
		return trec_rule_unsupported(row);
	trec_rule_fp(frame, A64_X29, &row->info); /* the caller's x29 */
	return true;
}
