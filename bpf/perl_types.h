/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the BPF Perl unwinder (bpf/perl_unwind.h) and trecord
 * (record/interp/perl/): the per-process offsets that let BPF walk a Perl 5
 * interpreter's context stack, and the cursor kept between programs.
 *
 * Include after vmlinux.h (BPF) or <linux/types.h> (userspace).
 */
#ifndef TREC_PERL_TYPES_H
#define TREC_PERL_TYPES_H

/* Context stack entries walked per program run before the program
 * tail-calls itself: as many as a trace has frames, as the entries go
 * through bpf_loop, whose callback the verifier checks once. */
#define TREC_PERL_CX_PER_PROGRAM 256

/* Bytes BPF reads of a PERL_CONTEXT entry, and of an SV head (any,
 * refcnt, flags, sv_u); every field used must fit, trecord checks. */
#define TREC_PERL_CX_READ 80
#define TREC_PERL_SV_READ 24

/* Perl's own constants (cop.h, sv.h, cv.h), stable over 5.x. */
#define TREC_PERL_CXTYPEMASK 0xf
#define TREC_PERL_CXt_SUB 9
#define TREC_PERL_CXt_FORMAT 10
#define TREC_PERL_CXt_EVAL 11
#define TREC_PERL_CXt_SUBST 12
#define TREC_PERL_CXp_SUB_RE_FAKE 0x80
#define TREC_PERL_SVt_MASK 0x1f
#define TREC_PERL_SVt_PVGV 9
#define TREC_PERL_SVt_PVHV 12
#define TREC_PERL_SVt_PVCV 13
#define TREC_PERL_SVpgv_GP 0x8000
#define TREC_PERL_SVf_OOK 0x02000000
#define TREC_PERL_CVf_NAMED 0x8000
#define TREC_PERL_SI_MAIN 1
#define TREC_PERL_SI_SORT 3

/*
 * What a Perl frame names (FORMAT.md §12.1): the statement (COP) it is
 * at, and its sub as a handle: the sub's effective GV, or the CV's
 * address | 1 when the sub has no GV (a CvNAMED sub: main-package subs
 * since 5.22, lexical subs), or 0 for the main program. A frame is
 *   file_id      = COP address
 *   addr_or_line = (cop_line & 0xffff) << 48 | handle
 * the line bits being a guard against a COP freed and reused before
 * trecord reads it.
 */
#define TREC_PERL_HANDLE_CV 1ULL
#define TREC_PERL_HANDLE_MASK 0x0000ffffffffffffULL
#define TREC_PERL_LINE_SHIFT 48

/* perl_procs value: everything the BPF walker needs for one process. All
 * addresses are runtime addresses in that process; offsets are in bytes. */
struct trec_perl_proc_info {
	__u64 thr_key_addr; /* PL_thr_key: the pthread key of the interpreter */
	__u64 pp_sort_addr; /* Perl_pp_sort, 0 if unknown */
	__s32 tsd_offset;   /* libc's TSD layout (python_tsd.h) */
	__u8 tsd_multiplier;
	__u8 tsd_indirect;
	__u16 version;      /* 0x0524 for 5.36 */

	__u16 interp_curcop, interp_curstackinfo, interp_op; /* struct interpreter */
	__u16 op_ppaddr;                                    /* OP */
	__u16 si_cxstack, si_prev, si_cxix, si_type; /* PERL_SI */
	/* PERL_CONTEXT; cx_sub_retop is also an eval entry's retop */
	__u16 cx_size, cx_type, cx_oldcop, cx_sub_cv, cx_sub_retop;
	__u16 cop_line;
	__u16 sv_any, sv_flags, sv_u;  /* SV head; sv_u of a GV is its GP */
	__u16 xcv_flags, xcv_gv;       /* XPVCV */
	__u16 gp_egv;                  /* GP */
};

/* The walk's cursor in the per-CPU record (the OTel profiler's
 * perlUnwindState). si == 0: not started for this trace. */
struct trec_perl_cursor {
	__u64 si;     /* the stackinfo being walked */
	__u64 cxbase; /* its context array */
	__u64 cxcur;  /* next entry to walk (below cxbase: none left) */
	__u64 cop;    /* statement of the next sub frame (0: take blk_oldcop) */
	__u64 curcop; /* PL_curcop until the first sub entry is met, then 0 */
	/* The walk handed back at a sub entry C called (retop NULL): the
	 * C call's own eval scope and the end of its stackinfo belong to
	 * that boundary, not to another runops frame. */
	__u32 after_c_call;
	__u32 pad;
	/* The last sub's CV and its handle, for this trace (a recursion
	 * names one CV frame after frame: 3-5 reads each; trace_reset
	 * clears it). */
	__u64 memo_cv, memo_handle;
};

#endif /* TREC_PERL_TYPES_H */
