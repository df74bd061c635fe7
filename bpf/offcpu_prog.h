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
 *   switch-out of a thread that still has a parked trace: it ran, but no
 *     sched_switch showed it coming in (offcpu_unseen_switch_in); the end
 *     is told from the CPU time it has had since.
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

/* A parked wait of tid is over, blocked for ns: written if it lasted
 * offcpu_min_ns or more, else counted; the entry goes. */
static __always_inline void offcpu_end(__u32 tid, struct trec_trace *t, __u64 blocked)
{
	if (blocked < offcpu_min_ns) {
		increment_metric(TREC_METRIC_OFFCPU_SHORT);
	} else {
		t->offcpu_ns = blocked;
		if (output_trace(t) == 0)
			increment_metric(TREC_METRIC_OFFCPU_SENT);
	}
	bpf_map_delete_elem(&offcpu_pending, &tid);
}

static __always_inline void offcpu_switch_in(struct task_struct *next)
{
	__u32 tid = next->pid;
	struct trec_trace *t = bpf_map_lookup_elem(&offcpu_pending, &tid);

	if (!t)
		return;
	offcpu_end(tid, t, bpf_ktime_get_ns() - t->ktime_ns);
}

/*
 * prev is leaving a CPU with a wait still parked: it ran since it blocked,
 * and no sched_switch showed it coming in. Not every switch reaches the
 * tracepoint's programs: on the Firecracker guest kernel (6.18) trec is
 * tested on, a switch away from the VM agent's threads (process_api's
 * tokio-rt-worker) reaches neither BPF nor tracefs (README, Off-CPU time,
 * Limits). The
 * wait ended when the thread got a CPU, and it has been on that CPU ever
 * since (leaving it is a switch-out, this one, which every program sees),
 * so for as long as its se.sum_exec_runtime grew since it blocked: the
 * parked trace kept that sum in offcpu_ns. The kernel brings the sum up
 * to date as the thread leaves the CPU, before the tracepoint (update_curr
 * at the dequeue or put_prev). It runs on the clock of CPU time, which
 * leaves out steal time and interrupts where the kernel accounts them
 * apart: the wait can come out that much long.
 */
static __always_inline void offcpu_unseen_switch_in(struct task_struct *prev)
{
	__u32 tid = prev->pid;
	struct trec_trace *t;
	__u64 since, ran;

	if (!tid)
		return;
	t = bpf_map_lookup_elem(&offcpu_pending, &tid);
	if (!t)
		return;
	since = bpf_ktime_get_ns() - t->ktime_ns;
	ran = prev->se.sum_exec_runtime - t->offcpu_ns;
	if ((__s64)ran < 0) {
		/* Not the CPU time parked with it: the wait's end is unknown. */
		increment_metric(TREC_METRIC_OFFCPU_NO_SWITCH_IN);
		bpf_map_delete_elem(&offcpu_pending, &tid);
		return;
	}
	increment_metric(TREC_METRIC_OFFCPU_SWITCH_IN_UNSEEN);
	/* More CPU time than time passed: the two clocks' difference, on a
	 * wait too short to tell from none. */
	offcpu_end(tid, t, ran < since ? since - ran : 0);
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
	/* Until the wait ends: the thread's CPU time so far (offcpu_unseen_switch_in). */
	t->offcpu_ns = prev->se.sum_exec_runtime;
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
	/* Whatever prev's state: a wait it parked before ended unseen. */
	offcpu_unseen_switch_in(prev);
	if (preempt || prev_state == 0 || !prev->mm || (prev->flags & TREC_PF_EXITING) ||
	    !is_followed(prev->tgid) ||
	    /* -t, -u, -G: prev is still the current task here */
	    !passes_filters(((__u64)prev->tgid << 32) | (__u32)prev->pid))
		return 0;
	return offcpu_switch_out(ctx, prev);
}

#endif /* TREC_OFFCPU_PROG_H */
