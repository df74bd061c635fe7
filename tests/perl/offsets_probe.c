// SPDX-License-Identifier: MIT
/*
 * The truth for record/interp/perl/perl_offsets.c: field offsets of the
 * installed Perl, from its own headers (compiled by
 * tests/perl/test_perl_offsets.sh with `perl -MExtUtils::Embed -e ccopts`).
 * Prints "name value" lines in the order offsets_table.c prints them.
 */
#include <EXTERN.h>
#include <perl.h>
#include <stdio.h>

#define P(name, v) printf("%s %zu\n", name, (size_t)(v))

int main(void)
{
	P("version", PERL_REVISION * 1000 + PERL_VERSION);
	P("interp_curcop", offsetof(struct interpreter, Icurcop));
	P("interp_curstackinfo", offsetof(struct interpreter, Icurstackinfo));
	P("interp_op", offsetof(struct interpreter, Iop));
	P("op_ppaddr", offsetof(OP, op_ppaddr));
	P("si_cxstack", offsetof(PERL_SI, si_cxstack));
	P("si_prev", offsetof(PERL_SI, si_prev));
	P("si_cxix", offsetof(PERL_SI, si_cxix));
	P("si_type", offsetof(PERL_SI, si_type));
	P("cx_size", sizeof(PERL_CONTEXT));
	P("cx_type", offsetof(PERL_CONTEXT, cx_u.cx_blk.blku_type));
	P("cx_oldcop", offsetof(PERL_CONTEXT, cx_u.cx_blk.blku_oldcop));
	P("cx_sub_cv", offsetof(PERL_CONTEXT, cx_u.cx_blk.blk_u.blku_sub.cv));
	P("cx_sub_retop", offsetof(PERL_CONTEXT, cx_u.cx_blk.blk_u.blku_sub.retop));
	P("cx_eval_retop", offsetof(PERL_CONTEXT, cx_u.cx_blk.blk_u.blku_eval.retop));
	P("cop_line", offsetof(COP, cop_line));
	P("sv_any", offsetof(SV, sv_any));
	P("sv_flags", offsetof(SV, sv_flags));
	P("sv_u", offsetof(SV, sv_u));
	P("xcv_flags", offsetof(XPVCV, xcv_flags));
	P("xcv_gv", offsetof(XPVCV, xcv_gv_u));
	P("gp_egv", offsetof(GP, gp_egv));
	P("cop_file", offsetof(COP, cop_file));
	P("xcv_stash", offsetof(XPVCV, xcv_stash));
	P("xgv_namehek", offsetof(XPVGV, xiv_u));
	P("xgv_stash", offsetof(XPVGV, xnv_u));
	P("hek_len", offsetof(HEK, hek_len));
	P("hek_key", offsetof(HEK, hek_key));
	P("xhv_aux", offsetof(struct xpvhv_with_aux, xhv_aux));
	P("aux_name", offsetof(struct xpvhv_aux, xhv_name_u));
	P("aux_name_count", offsetof(struct xpvhv_aux, xhv_name_count));
	/* The constants bpf/perl_types.h copies. */
	P("CXt_SUB", CXt_SUB);
	P("CXt_FORMAT", CXt_FORMAT);
	P("CXt_EVAL", CXt_EVAL);
	P("CXt_SUBST", CXt_SUBST);
	P("CXp_SUB_RE_FAKE", CXp_SUB_RE_FAKE);
	P("SVt_PVGV", SVt_PVGV);
	P("SVt_PVHV", SVt_PVHV);
	P("SVt_PVCV", SVt_PVCV);
	P("SVpgv_GP", SVpgv_GP);
	P("SVf_OOK", SVf_OOK);
	P("CVf_NAMED", CVf_NAMED);
	P("PERLSI_MAIN", PERLSI_MAIN);
	P("PERLSI_SORT", PERLSI_SORT);
	return 0;
}
