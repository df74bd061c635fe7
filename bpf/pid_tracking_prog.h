/* SPDX-License-Identifier: MIT */
/*
 * Process tracking: tracepoint programs that send fork, exec, exit and
 * comm changes of followed processes to trecord through the trace ring
 * (struct trec_pid_event_msg), in order with their samples, and keep the
 * BPF side's per-pid state (followed_pids, fork_parents, the trie's
 * "synced" marker) in step with them.
 *
 * Included by bpf/trec.bpf.c (kernel build only) after is_followed().
 */
#ifndef TREC_PID_TRACKING_PROG_H
#define TREC_PID_TRACKING_PROG_H

static __always_inline void send_pid_event(__u32 type, struct task_struct *task,
					   __u32 parent_pid, __s32 exit_code,
					   const char *filename)
{
	struct trec_pid_event_msg *m;

	m = bpf_ringbuf_reserve(&trace_events, sizeof(*m), 0);
	if (!m) {
		increment_metric(TREC_METRIC_PID_EVENTS_LOST);
		return;
	}
	m->msg_type = TREC_MSG_PID_EVENT;
	m->type = type;
	m->ktime_ns = bpf_ktime_get_ns();
	m->pid = task->tgid;
	m->tid = task->pid;
	m->parent_pid = parent_pid;
	m->exit_code = exit_code;
	bpf_probe_read_kernel_str(m->comm, sizeof(m->comm), task->comm);
	m->filename[0] = 0;
	if (filename)
		bpf_probe_read_kernel_str(m->filename, sizeof(m->filename), filename);
	/* Wake the reader now: a new image must be synced while it runs. */
	bpf_ringbuf_submit(m, BPF_RB_FORCE_WAKEUP);
	increment_metric(TREC_METRIC_PID_EVENTS_SENT);
}

/* The pid's mappings are stale: unknown until userspace syncs it again. */
static __always_inline void forget_pid(__u32 pid)
{
	struct trec_pid_page_key marker = {
		.prefix_len = 96,
		.pid_be = __builtin_bswap32(pid),
		.page_be = 0,
	};

	bpf_map_delete_elem(&pid_page_to_mapping_info, &marker);
	/* A change of the trie, as trecord's are (stack_replay_log.h). */
	__sync_fetch_and_add(&trec_maps_gen, 1);
	bpf_map_delete_elem(&reported_pids, &pid);
	bpf_map_delete_elem(&fork_parents, &pid);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(trec_sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	/* A new thread is not a new process. */
	if (ctgid != (__u32)child->pid)
		return 0;
	if (!follow_all) {
		if (!bpf_map_lookup_elem(&followed_pids, &ptgid))
			return 0;
		if (bpf_map_update_elem(&followed_pids, &ctgid, &one, BPF_ANY))
			increment_metric(TREC_METRIC_FOLLOW_FAILED);
	}
	/* A reused pid: the entries of the process that had it may still be
	 * in their exit grace period (record/procs/pid_sync.h). */
	forget_pid(ctgid);
	bpf_map_update_elem(&fork_parents, &ctgid, &ptgid, BPF_ANY);
	send_pid_event(TREC_PID_EV_FORK, child, ptgid, 0, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(trec_sched_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = task->tgid;

	if (!is_followed(tgid))
		return 0;
	forget_pid(tgid);
	send_pid_event(TREC_PID_EV_EXEC, task, 0, 0, bprm->filename);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(trec_sched_exit, struct task_struct *task, bool group_dead)
{
	__u32 tgid = task->tgid;

	/* Only the last thread's exit ends the process. */
	if (!group_dead || !is_followed(tgid))
		return 0;
	/* The marker stays: samples of the teardown still unwind, and
	 * trecord removes the pid after a grace period. */
	bpf_map_delete_elem(&reported_pids, &tgid);
	bpf_map_delete_elem(&fork_parents, &tgid);
	send_pid_event(TREC_PID_EV_EXIT, task, 0, task->exit_code, 0);
	if (!follow_all)
		bpf_map_delete_elem(&followed_pids, &tgid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(trec_task_rename, struct task_struct *task, const char *comm)
{
	struct trec_pid_event_msg *m;

	/* exec renames too; its exec event already carries the new comm. */
	if (BPF_CORE_READ_BITFIELD_PROBED(task, in_execve) || !is_followed(task->tgid))
		return 0;
	m = bpf_ringbuf_reserve(&trace_events, sizeof(*m), 0);
	if (!m) {
		increment_metric(TREC_METRIC_PID_EVENTS_LOST);
		return 0;
	}
	m->msg_type = TREC_MSG_PID_EVENT;
	m->type = TREC_PID_EV_COMM;
	m->ktime_ns = bpf_ktime_get_ns();
	m->pid = task->tgid;
	m->tid = task->pid;
	m->parent_pid = 0;
	m->exit_code = 0;
	bpf_probe_read_kernel_str(m->comm, sizeof(m->comm), comm);
	m->filename[0] = 0;
	bpf_ringbuf_submit(m, 0);
	increment_metric(TREC_METRIC_PID_EVENTS_SENT);
	return 0;
}

#endif /* TREC_PID_TRACKING_PROG_H */
