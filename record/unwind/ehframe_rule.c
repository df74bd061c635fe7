// SPDX-License-Identifier: MIT
/*
 * One CFI table row (as computed by libdw) -> one trec unwind rule.
 *
 * Only rules the BPF unwinder runs exactly are accepted: CFA = rsp|rbp +
 * offset, the GCC PLT expression, and "breg; deref [; plus_uconst]". The
 * return address must be at CFA-8. Anything else becomes UNSUPPORTED, so
 * the BPF side stops with an error frame instead of guessing a wrong one.
 */
#include <string.h>
#include <dwarf.h>
#include "record/unwind/ehframe.h"

/* DWARF register numbers on x86-64. */
enum { X86_RBP = 6, X86_RSP = 7, X86_RIP = 16 };

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

/* bregN / bregx -> (register, offset); false for anything else. */
bool trec_op_breg(const Dwarf_Op *op, unsigned *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (unsigned)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

static uint8_t trec_reg(unsigned dwarf_reg)
{
	if (dwarf_reg == X86_RSP)
		return TREC_REG_SP;
	if (dwarf_reg == X86_RBP)
		return TREC_REG_FP;
	return TREC_REG_INVALID;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * The expression GCC and ld emit for lazy PLT entries:
 *   breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus
 * i.e. cfa = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), which TREC_CMD_PLT runs.
 */
static bool is_plt_expr(const Dwarf_Op *ops, size_t n)
{
	static const struct {
		uint8_t atom;
		uint64_t number;
	} want[] = {
		{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 },
		{ DW_OP_and, 0 },   { DW_OP_lit11, 0 },  { DW_OP_ge, 0 },
		{ DW_OP_lit3, 0 },  { DW_OP_shl, 0 },    { DW_OP_plus, 0 },
	};
	if (n != sizeof(want) / sizeof(want[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom != want[i].atom || ops[i].number != want[i].number)
			return false;
	return true;
}

/* Fills row->command/info from the CFA expression; false if unsupported. */
static bool cfa_rule(const Dwarf_Op *ops, size_t n, struct trec_row *row)
{
	unsigned reg;
	int64_t off;

	if (n == 0 || !trec_op_breg(&ops[0], &reg, &off)) {
		if (is_plt_expr(ops, n)) {
			row->command = CMD(TREC_CMD_PLT);
			return true;
		}
		return false;
	}
	if (is_plt_expr(ops, n)) {
		row->command = CMD(TREC_CMD_PLT);
		return true;
	}
	row->info.cfa_reg = trec_reg(reg);
	if (row->info.cfa_reg == TREC_REG_INVALID || !fits_s32(off))
		return false;
	row->info.cfa_param = (int32_t)off;
	if (n == 1)
		return true;
	/* breg; deref [; plus_uconst 8*k]: stack realignment, OpenSSL. */
	if (ops[1].atom != DW_OP_deref)
		return false;
	row->info.flags = TREC_UNWIND_F_DEREF_CFA;
	if (n == 2)
		return true;
	if (n == 3 && ops[2].atom == DW_OP_plus_uconst && ops[2].number % 8 == 0 &&
	    ops[2].number / 8 <= 7) {
		row->info.flags |= (uint8_t)((ops[2].number / 8) << 4);
		return true;
	}
	return false;
}

/* Register rule "saved at CFA + off": [call_frame_cfa] or [.., plus_uconst off]. */
bool trec_op_at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (n == 2) {
		if (ops[1].atom != DW_OP_plus_uconst)
			return false;
		*off = (int64_t)ops[1].number;
	}
	return true;
}

int trec_rule_start(Dwarf_Frame *frame, unsigned ra_col, struct trec_row *row, Dwarf_Op mem[3],
		    Dwarf_Op **ops, size_t *n)
{
	Dwarf_Addr start, end;
	bool signal = false;

	row->command = 0;
	memset(&row->info, 0, sizeof(row->info));
	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	if (signal) {
		row->command = CMD(TREC_CMD_SIGNAL);
		return 1;
	}
	if (ra < 0 || (unsigned)ra != ra_col || dwarf_frame_register(frame, ra, mem, ops, n) != 0)
		return trec_rule_unsupported(row) ? 1 : -1;
	/* nops 0 with ops == mem: undefined (outermost frame). */
	if (*n == 0 && *ops == mem) {
		row->command = CMD(TREC_CMD_STOP);
		return 1;
	}
	return 0;
}

void trec_rule_fp(Dwarf_Frame *frame, unsigned reg, struct trec_unwind_info *info)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	/* Rules we cannot run become UNDEFINED: the BPF side then clears fp,
	 * so a later fp-based CFA fails instead of lying. */
	info->fp_rule = TREC_FP_UNDEFINED;
	if (dwarf_frame_register(frame, (int)reg, mem, &ops, &n) != 0)
		return;
	if (n == 0 && ops == NULL) {
		info->fp_rule = TREC_FP_SAME;
	} else if (trec_op_at_cfa(ops, n, &off) && fits_s32(off)) {
		info->fp_rule = TREC_FP_AT_CFA;
		info->fp_param = (int32_t)off;
	}
}

bool trec_rule_unsupported(struct trec_row *row)
{
	row->command = CMD(TREC_CMD_UNSUPPORTED);
	memset(&row->info, 0, sizeof(row->info));
	return false;
}

bool trec_rule_from_frame(Dwarf_Frame *frame, struct trec_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	int r = trec_rule_start(frame, X86_RIP, row, mem, &ops, &n);
	if (r)
		return r > 0;
	if (!trec_op_at_cfa(ops, n, &off) || off != -8)
		goto unsupported;

	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || !cfa_rule(ops, n, row))
		goto unsupported;
	if (row->command)
		return true; /* PLT */

	trec_rule_fp(frame, X86_RBP, &row->info); /* the caller's rbp */
	return true;

unsupported:
	return trec_rule_unsupported(row);
}
