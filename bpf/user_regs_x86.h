/* SPDX-License-Identifier: MIT */
/*
 * x86-64: the user registers of a perf sample. Kernel-only (uses pt_regs
 * and task BTF); the offline harness supplies registers itself.
 */
#ifndef TREC_USER_REGS_X86_H
#define TREC_USER_REGS_X86_H

static __always_inline int regs_user_mode(__u64 cs)
{
	return (cs & 3) == 3;
}

/* The perf_event context only allows full 8-byte loads of its registers;
 * volatile stops clang from narrowing `cs & 3` to a 2-byte load. */
#define TREC_CTX_REG(ctx, field) (*(volatile __u64 *)&(ctx)->regs.field)

static __always_inline int trec_ctx_user_mode(struct bpf_perf_event_data *ctx)
{
	return regs_user_mode(TREC_CTX_REG(ctx, cs));
}

/*
 * Fills the cursor with the user context saved at the top of task's kernel
 * stack (on syscall entry, fault or interrupt). 0, or -1 if there is none.
 */
static __always_inline int get_task_user_regs(struct task_struct *task,
					      struct trec_unwind_state *st)
{
	struct pt_regs *ur = (struct pt_regs *)bpf_task_pt_regs(task);

	if (!ur || !regs_user_mode(ur->cs))
		return -1;
	st->pc = ur->ip;
	st->sp = ur->sp;
	st->fp = ur->bp;
	st->rax = ur->ax;
	st->r9 = ur->r9;
	st->r11 = ur->r11;
	st->r15 = ur->r15;
	return 0;
}

/*
 * Fills the cursor with the interrupted user context. A sample that hit
 * user code has it in ctx->regs; one that hit the kernel (syscall, fault,
 * interrupt) finds it saved at the top of the task's kernel stack.
 * Returns 1 if the sample hit kernel mode, 0 if user mode, -1 if there is
 * no user context.
 */
static __always_inline int get_user_regs(struct bpf_perf_event_data *ctx,
					 struct task_struct *task,
					 struct trec_unwind_state *st)
{
	if (regs_user_mode(TREC_CTX_REG(ctx, cs))) {
		st->pc = TREC_CTX_REG(ctx, ip);
		st->sp = TREC_CTX_REG(ctx, sp);
		st->fp = TREC_CTX_REG(ctx, bp);
		st->rax = TREC_CTX_REG(ctx, ax);
		st->r9 = TREC_CTX_REG(ctx, r9);
		st->r11 = TREC_CTX_REG(ctx, r11);
		st->r15 = TREC_CTX_REG(ctx, r15);
		return 0;
	}
	return get_task_user_regs(task, st) ? -1 : 1;
}

#endif /* TREC_USER_REGS_X86_H */
