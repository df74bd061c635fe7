// SPDX-License-Identifier: MIT
/*
 * trecord's view of the installed Perl: its row of
 * record/interp/perl/perl_offsets.c and bpf/perl_types.h's constants, in
 * the order and format of tests/perl/offsets_probe.c.
 *   usage: offsets_table REVISION VERSION
 */
#include <stdio.h>
#include <stdlib.h>
#include "record/interp/perl/perl_offsets.h"

#define P(name, v) printf("%s %zu\n", name, (size_t)(v))

int main(int argc, char **argv)
{
	const struct trec_perl_offsets *o;
	const struct trec_perl_proc_info *b;

	if (argc != 3)
		return 2;
	o = trec_perl_offsets_for((unsigned)atoi(argv[1]), (unsigned)atoi(argv[2]));
	if (!o) {
		printf("no row for perl %s.%s\n", argv[1], argv[2]);
		return 1;
	}
	b = &o->bpf;
	P("version", o->revision * 1000 + o->version);
	P("interp_curcop", b->interp_curcop);
	P("interp_curstackinfo", b->interp_curstackinfo);
	P("interp_op", b->interp_op);
	P("op_ppaddr", b->op_ppaddr);
	P("si_cxstack", b->si_cxstack);
	P("si_prev", b->si_prev);
	P("si_cxix", b->si_cxix);
	P("si_type", b->si_type);
	P("cx_size", b->cx_size);
	P("cx_type", b->cx_type);
	P("cx_oldcop", b->cx_oldcop);
	P("cx_sub_cv", b->cx_sub_cv);
	P("cx_sub_retop", b->cx_sub_retop);
	P("cx_eval_retop", b->cx_sub_retop); /* the BPF side reads both there */
	P("cop_line", b->cop_line);
	P("sv_any", b->sv_any);
	P("sv_flags", b->sv_flags);
	P("sv_u", b->sv_u);
	P("xcv_flags", b->xcv_flags);
	P("xcv_gv", b->xcv_gv);
	P("gp_egv", b->gp_egv);
	P("cop_file", o->cop_file);
	P("xcv_stash", o->xcv_stash);
	P("xgv_namehek", o->xgv_namehek);
	P("xgv_stash", o->xgv_stash);
	P("hek_len", o->hek_len);
	P("hek_key", o->hek_key);
	P("xhv_aux", o->xhv_aux);
	P("aux_name", o->aux_name);
	P("aux_name_count", o->aux_name_count);
	P("CXt_SUB", TREC_PERL_CXt_SUB);
	P("CXt_FORMAT", TREC_PERL_CXt_FORMAT);
	P("CXt_EVAL", TREC_PERL_CXt_EVAL);
	P("CXt_SUBST", TREC_PERL_CXt_SUBST);
	P("CXp_SUB_RE_FAKE", TREC_PERL_CXp_SUB_RE_FAKE);
	P("SVt_PVGV", TREC_PERL_SVt_PVGV);
	P("SVt_PVHV", TREC_PERL_SVt_PVHV);
	P("SVt_PVCV", TREC_PERL_SVt_PVCV);
	P("SVpgv_GP", TREC_PERL_SVpgv_GP);
	P("SVf_OOK", TREC_PERL_SVf_OOK);
	P("CVf_NAMED", TREC_PERL_CVf_NAMED);
	P("PERLSI_MAIN", TREC_PERL_SI_MAIN);
	P("PERLSI_SORT", TREC_PERL_SI_SORT);
	return 0;
}
