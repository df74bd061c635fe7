/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU stacks (issue 13), one tracing program on sched_switch:
 *
 *   switch-out of a followed thread that blocks (prev_state != RUNNING):
 *     runs in that thread's context, so its user stack is unwound like a
 *     cpu-clock sample's (user registers from its pt_regs, then the
 *     _offcpu copies of the unwinders through offcpu_progs); the kernel
 *     stack shows the wait (do_nanosleep, futex_wait, pipe_read, ...).
 *     The finished trace is parked in offcpu_pending under its tid.
 *   switch-in of a thread with a parked trace: the wait is over; if it
 *     lasted offcpu_min_ns or more, the trace goes to the ring buffer with
 *     offcpu_ns set, else it only counts in OFFCPU_SHORT.
 *
 * Preempted threads (still runnable) are on-CPU time waiting for a CPU, not
 * blocked: they are left out, as perf --off-cpu does. Kernel threads have no
 * user stack and are left out too.
 *
 * Stacks taken at switch-out draw on the samples' CPU budget
 * (cpu_budget.h): past it, the leaf and the wait's duration only. The
 * switch-in half is small and is not charged.
 *
 * Included by bpf/trec.bpf.c after collect_trace_in(), push_kernel_frames(),
 * send_throttled() and sample_task.h; the loader attaches it only with
 * --off-cpu.
 */
#ifndef TREC_OFFCPU_PROG_H
#define TREC_OFFCPU_PROG_H

/* Shorter waits are counted, not written (trecord --off-cpu-min). */
TREC_RODATA(__u64, offcpu_min_ns, 10000);

#define TREC_OFFCPU_KSTACK_SKIP 2
#define TREC_PF_EXITING 0x00000004 /* include/linux/sched.h */

static __always_inline void offcpu_switch_in(struct task_struct *next)
{
	__u32 tid = next->pid;
	struct trec_trace *t = bpf_map_lookup_elem(&offcpu_pending, &tid);
	__u64 blocked;

	if (!t)
		return;
	blocked = bpf_ktime_get_ns() - t->ktime_ns;
	if (blocked < offcpu_min_ns) {
		increment_metric(TREC_METRIC_OFFCPU_SHORT);
	} else {
		t->offcpu_ns = blocked;
		if (output_trace(t) == 0)
			increment_metric(TREC_METRIC_OFFCPU_SENT);
	}
	bpf_map_delete_elem(&offcpu_pending, &tid);
}

static __always_inline int offcpu_switch_out(void *ctx, struct task_struct *prev)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();
	struct trec_trace *t;
	bool throttled;

	if (!rec)
		return 0;
	increment_metric(TREC_METRIC_OFFCPU_SWITCHES);
	trace_reset(rec);
	t = &rec->trace;
	t->pid = prev->tgid;
	t->tid = prev->pid;
	t->cpu = bpf_get_smp_processor_id();
	t->ktime_ns = bpf_ktime_get_ns();
	t->flags = TREC_TRACE_F_OFFCPU | TREC_TRACE_F_KERNEL_MODE;
	read_comm(t->comm, prev);
	if (is_self(t->pid))
		return send_self(rec);
	/* The same per-CPU budget as samples (cpu_budget.h). Past it a wait
	 * keeps its duration and user leaf but not its kernel stack: that
	 * walk is most of what a cut wait would still cost. */
	throttled = budget_exhausted(rec, t->ktime_ns);
	if (!throttled) {
		/* Skip this program and bpf_trace_run4: the stack starts in __schedule. */
		t->kernel_stack_id = bpf_get_stackid(ctx, &kernel_stackmap, TREC_OFFCPU_KSTACK_SKIP);
		if (t->kernel_stack_id < 0) {
			increment_metric(TREC_METRIC_KERNEL_STACK_FAILED);
			push_kernel_frames(ctx, rec, TREC_OFFCPU_KSTACK_SKIP);
		}
	}
	if (get_task_user_regs(prev, &rec->state)) {
		set_error(&rec->state, TREC_ERR_NATIVE_NO_USER_REGS, TREC_METRIC_NO_USER_REGS);
		finish_trace(rec);
		return 0;
	}
	if (throttled)
		return send_throttled(rec);
	return collect_trace_in(ctx, &offcpu_progs, rec);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(trec_offcpu_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	/* First: a tail call from the switch-out part does not return. */
	offcpu_switch_in(next);
	if (preempt || prev_state == 0 || !prev->mm || (prev->flags & TREC_PF_EXITING) ||
	    !is_followed(prev->tgid) ||
	    /* -t, -u, -G: prev is still the current task here */
	    !passes_filters(((__u64)prev->tgid << 32) | (__u32)prev->pid))
		return 0;
	return offcpu_switch_out(ctx, prev);
}

#endif /* TREC_OFFCPU_PROG_H */
