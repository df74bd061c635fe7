/* SPDX-License-Identifier: MIT */
/*
 * x86-64 half of the native unwinder. The return address is always at
 * cfa - 8 and the caller's sp is the cfa (the call pushed the return
 * address); rbp is the only callee-saved register we track.
 * Included by native_unwind.h.
 */
#ifndef TREC_NATIVE_UNWIND_X86_H
#define TREC_NATIVE_UNWIND_X86_H

/*
 * Layout of the rt_sigframe a signal handler returns through. When the
 * trampoline's frame is reached, sp points at the ucontext (the handler's
 * `ret` popped pretcode). ucontext: uc_flags 8, uc_link 8, uc_stack 24,
 * then uc_mcontext (struct sigcontext_64), whose registers start with
 * r8 r9 r10 r11 r12 r13 r14 r15 di si bp bx dx ax cx sp ip.
 */
#define TREC_X86_UC_MCONTEXT 40
enum {
	TREC_X86_SC_R9 = 1,
	TREC_X86_SC_R11 = 3,
	TREC_X86_SC_R15 = 7,
	TREC_X86_SC_BP = 10,
	TREC_X86_SC_AX = 13,
	TREC_X86_SC_SP = 15,
	TREC_X86_SC_IP = 16,
	TREC_X86_SC_NREGS = 17,
};

/* Continues in the context the signal interrupted. That pc is where the
 * thread was, not a return address: lookups must not subtract 1. */
static __always_inline int unwind_signal_frame_x86(struct trec_per_cpu_record *rec)
{
	/* The registers go through the stack window, not the BPF stack: the
	 * calls from an interpreter's program into this subprogram and its
	 * lookup must fit 512 bytes of stack together. */
	struct trec_unwind_state *st = &rec->state;
	__u64 *regs = rec->win;

	st->win_base = 0;
	if (bpf_probe_read_user(regs, TREC_X86_SC_NREGS * 8,
				(const void *)(unsigned long)(st->sp + TREC_X86_UC_MCONTEXT)))
		return set_error(st, TREC_ERR_NATIVE_SIGNAL_FRAME_READ,
				 TREC_METRIC_NATIVE_SIGNAL_FRAME_READ);
	if (check_user_pc(st, regs[TREC_X86_SC_IP]))
		return -1;
	st->cfa = st->sp;
	st->pc = regs[TREC_X86_SC_IP];
	st->sp = regs[TREC_X86_SC_SP];
	st->fp = regs[TREC_X86_SC_BP];
	st->rax = regs[TREC_X86_SC_AX];
	st->r9 = regs[TREC_X86_SC_R9];
	st->r11 = regs[TREC_X86_SC_R11];
	st->r15 = regs[TREC_X86_SC_R15];
	st->return_address = 0;
	/* The interrupted code may run on another stack (sigaltstack). */
	st->stack_lo = st->sp;
	st->fp_chain = 0;
	return 0;
}

/* cfa from an interned rule; also the caller's fp. */
static __always_inline int apply_unwind_info_x86(struct trec_per_cpu_record *rec,
						 const struct trec_unwind_info *ui,
						 __u64 *cfa, __u64 *fp)
{
	struct trec_unwind_state *st = &rec->state;
	__u64 base;

	switch (ui->cfa_reg) {
	case TREC_REG_SP:
		base = st->sp;
		break;
	case TREC_REG_FP:
		replay_note_fp_word(st);
		base = st->fp;
		break;
	default:
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
	}
	*cfa = base + (__s64)ui->cfa_param;
	if (ui->flags & TREC_UNWIND_F_DEREF_CFA) {
		__u64 v;

		if (read_stack_u64(rec, &v, *cfa))
			return set_error(st, TREC_ERR_NATIVE_CFA_READ, TREC_METRIC_NATIVE_CFA_READ);
		*cfa = v + 8 * ((ui->flags >> 4) & 7);
	}

	switch (ui->fp_rule) {
	case TREC_FP_SAME:
		*fp = st->fp;
		break;
	case TREC_FP_AT_CFA:
		if (read_stack_fp_word(rec, fp, *cfa + (__s64)ui->fp_param))
			return set_error(st, TREC_ERR_NATIVE_FP_READ, TREC_METRIC_NATIVE_FP_READ);
		break;
	case TREC_FP_UNDEFINED:
		st->fp_word_pending = 0;
		*fp = 0;
		break;
	default:
		return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
				 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
	}
	return 0;
}

/*
 * Moves the cursor from the frame at st->pc to its caller. *stop is set
 * when the frame is the outermost one (a STOP rule): no caller, no error.
 * Returns 0, or -1 with st->unwind_error set. A subprogram (TREC_SUBPROG):
 * its rules and the loop's bookkeeping are verified side by side, not
 * every rule on every path of the loop (39k -> 13k instructions).
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
		return trec_fp_step(st, stop);
	switch (get_stack_delta(st, &info)) {
	case 0:
		break;
	case TREC_DELTA_NO_PAGE:
		replay_stop_logging(st);
		return trec_fp_fallback(st, stop);
	default:
		return -1;
	}

	if (info & TREC_UNWIND_COMMAND) {
		switch (info & ~TREC_UNWIND_COMMAND) {
		case TREC_CMD_STOP:
			*stop = true;
			/* Set here, not by the caller: its spills there pushed
			 * the Python program past BPF's 512 stack bytes. */
			st->replay_stopped = 1;
			increment_metric(TREC_METRIC_NATIVE_STOPPED);
			return 0;
		case TREC_CMD_SIGNAL:
			replay_stop_logging(st);
			return unwind_signal_frame_x86(rec);
		case TREC_CMD_PLT:
			/* The GCC PLT rule: the push in the lazy-binding stub
			 * moved sp once pc passed offset 11 of the 16-byte entry. */
			cfa = st->sp + 8 + ((st->pc & 15) >= 11 ? 8 : 0);
			break;
		case TREC_CMD_FRAME_POINTER: /* code without CFI in a CFI'd file */
			replay_stop_logging(st);
			return trec_fp_step(st, stop);
		case TREC_CMD_GO_SWITCH_ROOT:
			replay_stop_logging(st);
			if (!st->return_address)
				return trec_fp_step_on(st, stop, true);
			*stop = true;
			increment_metric(TREC_METRIC_GO_SWITCH_ROOTS);
			return 0;
		case TREC_CMD_GO_SWITCH_FP:
			replay_stop_logging(st);
			return trec_fp_step_on(st, stop, true);
		case TREC_CMD_INVALID:
			return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
					 TREC_METRIC_NATIVE_DELTA_INVALID);
		default: /* UNSUPPORTED, or a command newer than this program */
			return set_error(st, TREC_ERR_NATIVE_UNSUPPORTED_RULE,
					 TREC_METRIC_NATIVE_UNSUPPORTED_RULE);
		}
	} else {
		ui = get_unwind_info(st, info);
		if (!ui)
			return -1;
		if (apply_unwind_info_x86(rec, ui, &cfa, &fp))
			return -1;
	}

	/* The caller's frame is above this one; anything else is a loop or
	 * garbage, and would walk the stack forever. */
	if (cfa <= st->sp)
		return set_error(st, TREC_ERR_NATIVE_SP_NOT_INCREASING,
				 TREC_METRIC_NATIVE_SP_NOT_INCREASING);
	if (read_stack_u64(rec, &ra, cfa - 8))
		return set_error(st, TREC_ERR_NATIVE_PC_READ, TREC_METRIC_NATIVE_PC_READ);
	if (check_user_pc(st, ra))
		return -1;

	st->cfa = cfa;
	st->pc = ra;
	st->sp = cfa;
	st->fp = fp;
	/* Only the leaf frame has valid scratch registers. */
	st->rax = st->r9 = st->r11 = st->r15 = 0;
	st->return_address = 1;
	st->fp_chain = 0;
	return 0;
}

#endif /* TREC_NATIVE_UNWIND_X86_H */
