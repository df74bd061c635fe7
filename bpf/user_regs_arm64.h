/* SPDX-License-Identifier: MIT */
/*
 * arm64: the user registers of a perf sample. Kernel-only (uses pt_regs
 * and task BTF); the offline harness supplies registers itself.
 */
#ifndef TREC_USER_REGS_ARM64_H
#define TREC_USER_REGS_ARM64_H

/* PSTATE.M: EL0 with the AArch64 state (0x10 would be a 32-bit task,
 * whose stacks this unwinder does not know). */
#define TREC_ARM64_PSR_MODE_MASK 0x1f
#define TREC_ARM64_PSR_MODE_EL0T 0

static __always_inline int regs_user_mode(__u64 pstate)
{
	return (pstate & TREC_ARM64_PSR_MODE_MASK) == TREC_ARM64_PSR_MODE_EL0T;
}

/* The perf_event context (struct user_pt_regs here) only allows full
 * 8-byte loads of its registers; volatile keeps them whole. */
#define TREC_CTX_REG(ctx, field) (*(volatile __u64 *)&(ctx)->regs.field)

static __always_inline int trec_ctx_user_mode(struct bpf_perf_event_data *ctx)
{
	return regs_user_mode(TREC_CTX_REG(ctx, pstate));
}

/*
 * Fills the cursor with the user context saved at the top of task's kernel
 * stack (syscall, fault, interrupt; also a thread blocked in the kernel,
 * for off-CPU stacks). x30 is the leaf's return address until the leaf
 * saves it. 0, or -1 if there is none.
 */
static __always_inline int get_task_user_regs(struct task_struct *task,
					      struct trec_unwind_state *st)
{
	struct pt_regs *ur = (struct pt_regs *)bpf_task_pt_regs(task);

	if (!ur || !regs_user_mode(ur->pstate))
		return -1;
	st->pc = ur->pc;
	st->sp = ur->sp;
	st->fp = ur->regs[29];
	st->lr = ur->regs[30];
	st->lr_valid = 1;
	return 0;
}

/*
 * Fills the cursor with the interrupted user context: from ctx->regs when
 * the sample hit user code, else from the pt_regs at the top of the
 * task's kernel stack. Returns 1 if the sample hit kernel mode, 0 if user
 * mode, -1 if there is no user context.
 */
static __always_inline int get_user_regs(struct bpf_perf_event_data *ctx,
					 struct task_struct *task,
					 struct trec_unwind_state *st)
{
	if (trec_ctx_user_mode(ctx)) {
		st->pc = TREC_CTX_REG(ctx, pc);
		st->sp = TREC_CTX_REG(ctx, sp);
		st->fp = TREC_CTX_REG(ctx, regs[29]);
		st->lr = TREC_CTX_REG(ctx, regs[30]);
		st->lr_valid = 1;
		return 0;
	}
	return get_task_user_regs(task, st) ? -1 : 1;
}

#endif /* TREC_USER_REGS_ARM64_H */
