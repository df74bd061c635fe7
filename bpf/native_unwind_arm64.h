/* SPDX-License-Identifier: MIT */
/*
 * arm64 half of the native unwinder. bl leaves the return address in x30
 * (LR); a function that calls others saves it, usually paired with x29
 * (stp x29, x30, [sp, #-N]!), so a rule says where it is: still in LR
 * (leaf functions, prologues before the save, PLT stubs) or at cfa + k.
 * LR is only known for the leaf frame and for the context a signal frame
 * restores: a rule that wants it anywhere else is an error, not a guess.
 * The caller's sp is the cfa, as on x86-64. Included by native_unwind.h.
 */
#ifndef TREC_NATIVE_UNWIND_ARM64_H
#define TREC_NATIVE_UNWIND_ARM64_H

/*
 * Pointer authentication (-mbranch-protection=pac-ret) signs saved return
 * addresses in their top bits. User addresses are below 2^48 (52-bit user
 * VA is opt-in, per mmap hint); clearing bits 48..63 strips any PAC.
 */
#define TREC_ARM64_VA_MASK ((1ULL << 48) - 1)

/*
 * The rt_sigframe a signal handler returns through (the kernel's, and
 * qemu-user's copy of it). At the trampoline (mov x8, #139; svc #0, in
 * the vdso or an SA_RESTORER) sp points at it: siginfo (128 bytes), then
 * the ucontext, whose uc_mcontext (struct sigcontext) starts at 176 with
 * fault_address then regs[31], sp, pc. x29, x30, sp, pc are adjacent.
 */
#define TREC_ARM64_SIGFRAME_X29 (128 + 176 + 8 + 29 * 8)

static __always_inline __u64 arm64_strip_pac(__u64 ra)
{
	return ra & TREC_ARM64_VA_MASK;
}

/* Continues in the context the signal interrupted: its pc is where the
 * thread was (no -1 on lookups) and its x30 is valid again. */
static __always_inline int unwind_signal_frame_arm64(struct trec_unwind_state *st)
{
	struct {
		__u64 x29, x30, sp, pc;
	} r;

	if (bpf_probe_read_user(&r, sizeof(r),
				(const void *)(unsigned long)(st->sp + TREC_ARM64_SIGFRAME_X29)))
		return set_error(st, TREC_ERR_NATIVE_SIGNAL_FRAME_READ,
				 TREC_METRIC_NATIVE_SIGNAL_FRAME_READ);
	r.pc = arm64_strip_pac(r.pc);
	if (check_user_pc(st, r.pc))
		return -1;
	st->cfa = st->sp;
	st->pc = r.pc;
	st->sp = r.sp;
	st->fp = r.x29;
	st->lr = r.x30;
	st->lr_valid = 1;
	st->return_address = 0;
	/* The interrupted code may run on another stack (sigaltstack). */
	st->stack_lo = st->sp;
	st->fp_chain = 0;
	return 0;
}

/*
 * cfa and the caller's x29 from an interned rule. aarch64 compilers emit
 * no dereferenced CFAs: such a rule is not for this architecture.
 * After a frame-pointer step sp is a guess: arm64 frame records sit at the
 * bottom of their frame (stp x29, x30, [sp, #-N]!), so the record gives
 * no caller's sp; an sp-based cfa then is refused (x29-based ones work).
 */
static __always_inline int apply_unwind_info_arm64(struct trec_unwind_state *st,
						   const struct trec_unwind_info *ui,
						   __u64 *cfa, __u64 *fp)
{
	if (ui->flags)
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
	if (ui->cfa_reg == TREC_REG_SP && st->fp_chain)
		return set_error(st, TREC_ERR_NATIVE_SP_UNKNOWN, TREC_METRIC_NATIVE_SP_UNKNOWN);
	if (ui->cfa_reg == TREC_REG_SP)
		*cfa = st->sp + (__s64)ui->cfa_param;
	else if (ui->cfa_reg == TREC_REG_FP)
		*cfa = st->fp + (__s64)ui->cfa_param;
	else
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);

	if (ui->fp_rule == TREC_FP_SAME)
		*fp = st->fp;
	else if (ui->fp_rule == TREC_FP_UNDEFINED)
		*fp = 0;
	else if (ui->fp_rule != TREC_FP_AT_CFA)
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
	else if (read_user_u64(fp, *cfa + (__s64)ui->fp_param))
		return set_error(st, TREC_ERR_NATIVE_FP_READ, TREC_METRIC_NATIVE_FP_READ);
	return 0;
}

/* The return address of a rule: from LR (leaf only) or the stack. The
 * frame must have grown the stack unless its return address is in LR (a
 * leaf without a frame has cfa == sp); anything else is a loop. */
static __always_inline int arm64_return_address(struct trec_unwind_state *st,
						const struct trec_unwind_info *ui, __u64 cfa,
						__u64 *ra)
{
	if (ui->ra_rule == TREC_RA_LR) {
		if (!st->lr_valid)
			return set_error(st, TREC_ERR_NATIVE_LR_INVALID,
					 TREC_METRIC_NATIVE_LR_INVALID);
		if (cfa < st->sp)
			return set_error(st, TREC_ERR_NATIVE_SP_NOT_INCREASING,
					 TREC_METRIC_NATIVE_SP_NOT_INCREASING);
		*ra = st->lr;
	} else if (ui->ra_rule == TREC_RA_AT_CFA) {
		if (cfa <= st->sp)
			return set_error(st, TREC_ERR_NATIVE_SP_NOT_INCREASING,
					 TREC_METRIC_NATIVE_SP_NOT_INCREASING);
		if (read_user_u64(ra, cfa + (__s64)ui->ra_param))
			return set_error(st, TREC_ERR_NATIVE_PC_READ, TREC_METRIC_NATIVE_PC_READ);
	} else {
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
	}
	*ra = arm64_strip_pac(*ra);
	return check_user_pc(st, *ra) ? -1 : 0;
}

/* A frame-pointer step (fp_unwind.h: the arm64 frame record is also
 * {x29, x30} at x29); x30 is no longer the frame's after it. */
static __always_inline int arm64_fp_step(struct trec_unwind_state *st, bool *stop, bool fallback)
{
	int err = fallback ? trec_fp_fallback(st, stop) : trec_fp_step(st, stop);

	if (!err) {
		st->lr_valid = 0;
		st->pc = arm64_strip_pac(st->pc);
	}
	return err;
}

/*
 * Moves the cursor from the frame at st->pc to its caller. *stop is set
 * when the frame is the outermost one (a STOP rule): no caller, no error.
 * Returns 0, or -1 with st->unwind_error set.
 */
TREC_SUBPROG int trec_unwind_one_frame(struct trec_per_cpu_record *rec, bool *stop)
{
	struct trec_unwind_state *st;
	struct trec_unwind_info *ui;
	__u64 cfa, fp, ra;
	__u16 info;

	if (!rec || !stop)
		return -1;
	st = &rec->state;
	fp = st->fp;
	*stop = false;
	if (st->fp_frame)
		return arm64_fp_step(st, stop, false);
	switch (get_stack_delta(st, &info)) {
	case 0:
		break;
	case TREC_DELTA_NO_PAGE:
		return arm64_fp_step(st, stop, true);
	default:
		return -1;
	}

	if (info & TREC_UNWIND_COMMAND) {
		switch (info & ~TREC_UNWIND_COMMAND) {
		case TREC_CMD_STOP:
			*stop = true;
			increment_metric(TREC_METRIC_NATIVE_STOPPED);
			return 0;
		case TREC_CMD_SIGNAL:
			return unwind_signal_frame_arm64(st);
		case TREC_CMD_FRAME_POINTER: /* code without CFI in a CFI'd file */
			return arm64_fp_step(st, stop, false);
		case TREC_CMD_INVALID:
			return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
					 TREC_METRIC_NATIVE_DELTA_INVALID);
		default: /* PLT is x86-64's; UNSUPPORTED; a newer command */
			return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
					 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
		}
	}
	ui = get_unwind_info(st, info);
	if (!ui)
		return -1;
	if (apply_unwind_info_arm64(st, ui, &cfa, &fp))
		return -1;
	if (arm64_return_address(st, ui, cfa, &ra))
		return -1;

	st->cfa = cfa;
	st->pc = ra;
	st->sp = cfa;
	st->fp = fp;
	st->lr_valid = 0;
	st->return_address = 1;
	st->fp_chain = 0;
	return 0;
}

#endif /* TREC_NATIVE_UNWIND_ARM64_H */
