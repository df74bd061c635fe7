/* SPDX-License-Identifier: MIT */
/*
 * The Perl 5 unwinder: walks the sampled thread's context stack (the
 * PERL_CONTEXT array of each stackinfo, innermost first) and pushes one
 * TREC_FRAME_PERL frame per sub call, plus one for the main program.
 *
 * A sub's frame is at the statement its body runs now: PL_curcop for the
 * innermost, then each sub entry's blk_oldcop (the caller's statement when
 * it was called) for the sub below it. Other block entries (loops, evals,
 * the sort block) only supply that statement when none is pending.
 *
 * Perl calls subs without C recursion: one Perl_runops_standard frame runs
 * a whole run of sub calls. A new runops frame starts where C calls back
 * into Perl: a sub entry whose retop is NULL (call_sv from XS, a sort
 * comparator sub, tie/overload magic) or a new stackinfo (sort blocks,
 * signal handlers, DESTROY). At each of those the walk hands back to the
 * native unwinder, which pushes the runops frame and the C frames below it;
 * the next runops frame resumes at rec->perl. One C call is one boundary:
 * call_sv(G_EVAL) puts an eval entry with a NULL retop below the sub it
 * calls, and a stackinfo pushed for the call ends right below them; both
 * are passed over after the hand-back. The statement pending at the end of
 * an inner stackinfo belongs to the sub that made the C call, so it is
 * carried into the outer one. Native and Perl frames interleave in their
 * true order.
 *
 * Included by bpf/perl_prog.h. As userspace C (bpf/testing_shim.h) the
 * includer may define TREC_PERL_FSBASE() to give the thread's fs base.
 */
#ifndef TREC_PERL_UNWIND_H
#define TREC_PERL_UNWIND_H

#include "perl_maps.h"
#include "tracemgmt.h"

#ifndef TREC_PERL_FSBASE
#ifdef TREC_TESTING_OFFLINE
#define TREC_PERL_FSBASE() 0ULL
#elif defined(__TARGET_ARCH_arm64)
/* TPIDR_EL0; the TSD layout trecord finds is x86-64 glibc's (as for
 * Python: unverified on arm64). */
#define TREC_PERL_FSBASE() (bpf_get_current_task_btf()->thread.uw.tp_value)
#else
/* The sampled thread's user fs base: glibc's thread pointer. */
#define TREC_PERL_FSBASE() (bpf_get_current_task_btf()->thread.fsbase)
#endif
#endif

/* No more Perl frames in this trace: later runops frames are native only. */
static __always_inline int trec_perl_done(struct trec_per_cpu_record *rec)
{
	unwinder_mark_done(rec, TREC_PROG_UNWIND_PERL);
	rec->perl.si = 0;
	return TREC_PROG_UNWIND_NATIVE;
}

/* A Perl-level failure: an inline error frame, then the native unwinder
 * goes on without Perl frames, so the rest of the stack is still there. */
static __always_inline int trec_perl_fail(struct trec_per_cpu_record *rec, enum trec_error err)
{
	increment_metric(TREC_METRIC_PERL_ERRORS);
	if (push_frame(rec, 0, err, TREC_FRAME_UNKNOWN, TREC_FRAME_F_ERROR))
		return TREC_PROG_UNWIND_STOP;
	return trec_perl_done(rec);
}

static __always_inline __u64 trec_perl_read_u64(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* Points the cursor at the top entry of stackinfo si. Returns an error. */
static __always_inline int trec_perl_enter_si(const struct trec_perl_proc_info *info,
					      struct trec_perl_cursor *c, __u64 si)
{
	__s32 cxix;
	__u64 base;

	if (bpf_probe_read_user(&base, sizeof(base), (void *)(si + info->si_cxstack)) ||
	    bpf_probe_read_user(&cxix, sizeof(cxix), (void *)(si + info->si_cxix)) || !base)
		return TREC_ERR_PERL_BAD_STACKINFO;
	c->si = si;
	c->cxbase = base;
	c->cxcur = base + (__s64)cxix * info->cx_size;
	return TREC_ERR_OK;
}

/*
 * sort runs on a stackinfo of its own from before its first comparator
 * call to after its last, but a runops frame runs it only while the
 * comparator does; in between sort's own C code (the merge) runs, under
 * the outer runops frame. PL_op tells: the sort op itself, or NULL after
 * a comparator call returned (unless the sample is in the runops loop
 * itself, leaving it: in_loop). Then the walk starts at the outer
 * stackinfo, at PL_curcop: the sort's statement.
 */
static __always_inline __u64 trec_perl_sort_in_c(const struct trec_perl_proc_info *info,
						 __u64 interp, __u64 si, int in_loop)
{
	__s32 type = 0;
	__u64 op, prev;

	if (!info->pp_sort_addr ||
	    bpf_probe_read_user(&type, sizeof(type), (void *)(si + info->si_type)) ||
	    type != TREC_PERL_SI_SORT)
		return si;
	op = trec_perl_read_u64(interp + info->interp_op);
	if (op ? trec_perl_read_u64(op + info->op_ppaddr) != info->pp_sort_addr : in_loop)
		return si; /* the comparator runs */
	prev = trec_perl_read_u64(si + info->si_prev);
	return prev ? prev : si;
}

/* The interpreter of the sampled thread (PL_thr_key's pthread value), its
 * innermost stackinfo that a runops frame runs, and its statement.
 * Returns an error code. */
static __always_inline int trec_perl_start(const struct trec_perl_proc_info *info,
					   struct trec_perl_cursor *c, int in_loop)
{
	__u32 key;
	__u64 slot, interp, si;

	if (bpf_probe_read_user(&key, sizeof(key), (void *)info->thr_key_addr))
		return TREC_ERR_PERL_BAD_TSD;
	slot = TREC_PERL_FSBASE() + (__s64)info->tsd_offset;
	if (info->tsd_indirect) {
		if (bpf_probe_read_user(&slot, sizeof(slot), (void *)slot))
			return TREC_ERR_PERL_BAD_TSD;
	} else if (key >= 32) { /* glibc keeps keys < 32 in the thread descriptor */
		return TREC_ERR_PERL_BAD_TSD;
	}
	slot += (__u64)key * info->tsd_multiplier;
	interp = trec_perl_read_u64(slot);
	if (!interp)
		return TREC_ERR_PERL_BAD_TSD;
	si = trec_perl_read_u64(interp + info->interp_curstackinfo);
	if (!si)
		return TREC_ERR_PERL_BAD_STACKINFO;
	si = trec_perl_sort_in_c(info, interp, si, in_loop);
	c->cop = trec_perl_read_u64(interp + info->interp_curcop);
	c->curcop = c->cop;
	c->after_c_call = 0;
	return trec_perl_enter_si(info, c, si);
}

/* A pointer field of a context entry copy; offsets are 8-aligned and
 * inside the copy (checked by trecord), the clamp keeps the verifier's
 * bounds. */
static __always_inline __u64 trec_perl_cx_word(const __u64 *w, __u16 off)
{
	__u32 i = off >> 3;

	if (i >= TREC_PERL_CX_READ / 8)
		i = 0;
	return w[i];
}

/* The handle of the sub cv runs (perl_types.h), or 0 if unreadable. */
static __always_inline __u64 trec_perl_sub_handle(const struct trec_perl_proc_info *info,
						  __u64 cv)
{
	__u64 h[TREC_PERL_SV_READ / 8], xpvcv, gv, egv;
	__u32 flags, xcv_flags;

	if (bpf_probe_read_user(h, sizeof(h), (void *)cv))
		return 0;
	flags = (__u32)(h[1] >> 32); /* sv_flags at 12: checked by trecord */
	if ((flags & TREC_PERL_SVt_MASK) != TREC_PERL_SVt_PVCV)
		return 0;
	xpvcv = h[0];
	if (bpf_probe_read_user(&xcv_flags, sizeof(xcv_flags), (void *)(xpvcv + info->xcv_flags)))
		return 0;
	if (xcv_flags & TREC_PERL_CVf_NAMED)
		return cv | TREC_PERL_HANDLE_CV;
	gv = trec_perl_read_u64(xpvcv + info->xcv_gv);
	if (!gv || bpf_probe_read_user(h, sizeof(h), (void *)gv))
		return 0;
	flags = (__u32)(h[1] >> 32);
	if ((flags & (TREC_PERL_SVt_MASK | TREC_PERL_SVpgv_GP)) !=
	    (TREC_PERL_SVt_PVGV | TREC_PERL_SVpgv_GP))
		return 0;
	egv = trec_perl_read_u64(h[2] + info->gp_egv); /* sv_u: the GP */
	return egv ? egv : gv;
}

/* Pushes a Perl frame at the pending statement. */
static __always_inline int trec_perl_push(struct trec_per_cpu_record *rec,
					  const struct trec_perl_proc_info *info, __u64 handle)
{
	__u64 cop = rec->perl.cop;
	__u32 line = 0;

	if (cop)
		bpf_probe_read_user(&line, sizeof(line), (void *)(cop + info->cop_line));
	handle = (handle & TREC_PERL_HANDLE_MASK) | (__u64)(line & 0xffff) << TREC_PERL_LINE_SHIFT;
	if (push_frame(rec, cop, handle, TREC_FRAME_PERL, TREC_FRAME_F_PID_SPECIFIC))
		return -1;
	increment_metric(TREC_METRIC_PERL_FRAMES);
	return 0;
}

/*
 * One context entry at the cursor. 0 to go on, 1 when it was the first
 * entry of a run of Perl code entered from C (hand back to native after
 * it), -1 when the trace is full.
 */
static __always_inline int trec_perl_cx(struct trec_per_cpu_record *rec,
					const struct trec_perl_proc_info *info)
{
	struct trec_perl_cursor *c = &rec->perl;
	__u64 w[TREC_PERL_CX_READ / 8];
	__u32 type_off = info->cx_type;
	int entered_from_c = 0;
	__u8 type;

	/* The top entry may be half-written (cxix is bumped first): skip an
	 * unreadable one rather than give up; a sub entry whose CV is not
	 * one gets an error frame (trec_perl_sub_handle). */
	if (bpf_probe_read_user(w, sizeof(w), (void *)c->cxcur)) {
		increment_metric(TREC_METRIC_PERL_CX_SKIPPED);
		return 0;
	}
	if (type_off >= TREC_PERL_CX_READ)
		type_off = 0;
	type = ((const __u8 *)w)[type_off];
	if (c->after_c_call) {
		/* call_sv's eval scope (G_EVAL) under the sub C called. */
		if ((type & TREC_PERL_CXTYPEMASK) == TREC_PERL_CXt_EVAL &&
		    trec_perl_cx_word(w, info->cx_sub_retop) == 0)
			return 0;
		c->after_c_call = 0;
	}
	switch (type & TREC_PERL_CXTYPEMASK) {
	case TREC_PERL_CXt_SUBST: /* another union member: no statement */
		return 0;
	case TREC_PERL_CXt_SUB:
	case TREC_PERL_CXt_FORMAT:
		if (type & TREC_PERL_CXp_SUB_RE_FAKE) /* (?{...}) re-entry, as caller() hides it */
			break;
		/* The innermost sub has not run a statement of its own while
		 * PL_curcop is still its caller's (entersub, leavesub; also
		 * while its entry is half-written): the caller's frame is at
		 * the call, the sub gets none. */
		if (c->curcop) {
			__u64 cur = c->curcop;

			c->curcop = 0;
			if (trec_perl_cx_word(w, info->cx_oldcop) == cur && c->cop == cur)
				return 0;
		}
		{
			__u64 cv = trec_perl_cx_word(w, info->cx_sub_cv), handle;

			if (cv && cv == c->memo_cv) {
				handle = c->memo_handle;
			} else {
				handle = trec_perl_sub_handle(info, cv);
				c->memo_cv = handle ? cv : 0;
				c->memo_handle = handle;
			}

			if (!handle) {
				increment_metric(TREC_METRIC_PERL_ERRORS);
				if (push_frame(rec, 0, TREC_ERR_PERL_BAD_CV, TREC_FRAME_UNKNOWN,
					       TREC_FRAME_F_ERROR))
					return -1;
			} else if (trec_perl_push(rec, info, handle)) {
				return -1;
			}
		}
		c->cop = 0;
		entered_from_c = trec_perl_cx_word(w, info->cx_sub_retop) == 0;
		break;
	default:
		break;
	}
	if (!c->cop)
		c->cop = trec_perl_cx_word(w, info->cx_oldcop);
	return entered_from_c;
}

/* The cursor's stackinfo is walked: on to the outer one, or at the main
 * one, push the main program's frame and finish. Returns PERL to walk on
 * in this runops frame (the end of the stackinfo of a C call already
 * handed back at), NATIVE to hand back (the end of a stackinfo whose
 * runops frame is this one: a sort block's), or STOP. */
static __always_inline int trec_perl_next_si(struct trec_per_cpu_record *rec,
					     const struct trec_perl_proc_info *info)
{
	struct trec_perl_cursor *c = &rec->perl;
	__s32 type = TREC_PERL_SI_MAIN;
	__u64 prev = 0;
	int err;

	bpf_probe_read_user(&type, sizeof(type), (void *)(c->si + info->si_type));
	if (type != TREC_PERL_SI_MAIN)
		prev = trec_perl_read_u64(c->si + info->si_prev);
	if (!prev) {
		if (c->cop && trec_perl_push(rec, info, 0))
			return TREC_PROG_UNWIND_STOP;
		return trec_perl_done(rec);
	}
	err = trec_perl_enter_si(info, c, prev);
	if (err)
		return trec_perl_fail(rec, err);
	if (c->after_c_call) {
		c->after_c_call = 0;
		return TREC_PROG_UNWIND_PERL;
	}
	return TREC_PROG_UNWIND_NATIVE;
}

/* bpf_loop's callback: the context entry at the cursor, or the step to
 * the outer stackinfo. 1 ends the loop, its result in rec->loop_next. */
static long perl_loop_step(__u64 i, void *arg)
{
	struct interp_loop *l = arg;
	struct trec_per_cpu_record *rec = l->rec;
	const struct trec_perl_proc_info *info = l->info;
	struct trec_perl_cursor *c = &rec->perl;
	int r;

	if (c->cxcur < c->cxbase) {
		r = trec_perl_next_si(rec, info);
		if (r == TREC_PROG_UNWIND_PERL)
			return 0;
		rec->loop_next = r;
		return 1;
	}
	r = trec_perl_cx(rec, info);
	c->cxcur -= info->cx_size;
	if (r < 0) {
		rec->loop_next = TREC_PROG_UNWIND_STOP;
		return 1;
	}
	if (r > 0) {
		c->after_c_call = 1;
		rec->loop_next = TREC_PROG_UNWIND_NATIVE;
		return 1;
	}
	return 0;
}

/*
 * The program body (bpf/perl_prog.h wraps it). Returns the unwinder to
 * tail-call next: NATIVE at a C boundary or when done (or Perl failed),
 * PERL when the entry budget ran out, STOP when the trace is full. The
 * entries go through bpf_loop: the verifier checks one (16 unrolled took
 * 11k instructions).
 */
static __always_inline int trec_perl_walk(struct trec_per_cpu_record *rec)
{
	const struct trec_perl_proc_info *info;
	struct trec_perl_cursor *c = &rec->perl;
	__u32 pid = rec->trace.pid;
	int err;

	info = bpf_map_lookup_elem(&perl_procs, &pid);
	if (!info)
		return trec_perl_fail(rec, TREC_ERR_PERL_NO_PROC_INFO);
	if (!c->si) {
		/* The leaf's pc in the run loop itself: not a return address. */
		err = trec_perl_start(info, c, !rec->state.return_address);
		if (err)
			return trec_perl_fail(rec, err);
	}
	rec->loop_next = TREC_PROG_UNWIND_PERL;
	bpf_loop(TREC_PERL_CX_PER_PROGRAM, perl_loop_step,
		 &(struct interp_loop){ .rec = rec, .info = info }, 0);
	return rec->loop_next;
}

#endif /* TREC_PERL_UNWIND_H */
