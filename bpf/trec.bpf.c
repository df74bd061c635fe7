// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trec's BPF side: a cpu-clock sampler that unwinds user stacks without
 * frame pointers, and the process tracking tracepoints.
 *
 *   trec_sample         perf_event entry: header, kernel stack id, user
 *                       registers, pid check, leaf mapping; tail-calls on
 *   trec_unwind_native  up to TREC_NATIVE_FRAMES_PER_PROG frames per call,
 *                       by stack deltas or frame pointer (per mapping)
 *   trec_unwind_stop    ends a trace (for unwinders that hand back)
 *   trec_offcpu_switch  sched_switch: off-CPU stacks (offcpu_prog.h), through
 *                       the *_offcpu copies of the unwinders (TREC_UNWINDER)
 *   trec_sched_*        fork/exec/exit/comm -> pid events in the same ring
 *                       (pid_tracking_prog.h)
 *
 * Offline (-DTREC_TESTING_OFFLINE) only the unwinding part is compiled:
 * the harness provides the helpers and maps through a shim it includes
 * first, and enters through collect_trace() with registers of its own.
 */
#ifndef TREC_TESTING_OFFLINE
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#endif

#include "native_unwind.h"
#include "stack_replay.h"

/*
 * Frames per invocation of trec_unwind_native: all a trace holds. The
 * frame step runs under bpf_loop, so the verifier checks it once, not once
 * per unrolled iteration (a tenth of the instructions it used to verify at
 * 10 frames per call), and a native stack costs no tail call of its own:
 * the 29-call budget goes to interpreter transitions only.
 */
#define TREC_NATIVE_FRAMES_PER_PROG TREC_MAX_FRAMES

/* Set by trecord: follow every process (-a) or only followed_pids. */
TREC_RODATA(bool, follow_all, true);
/* perf record's -t, -u, -G: only samples of these threads, this user,
 * this cgroup (v2 id); 0 / none: no filter. */
TREC_RODATA(__u32, filter_num_tids, 0);
TREC_RODATA(__u32, filter_tids[TREC_MAX_FILTER_TIDS], { 0 });
TREC_RODATA(__u32, filter_uid, TREC_NO_UID);
TREC_RODATA(__u64, filter_cgroup, 0);

#ifndef TREC_TESTING_OFFLINE
/* bpf_find_vma's context: the callback fills rec's vma_* fields. Not a
 * result on the stack: the verifier tracks stack values, and went over
 * the callback again for each way of filling it (5 times). */
struct vma_text {
	struct trec_per_cpu_record *rec;
};

static long vma_to_text(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
	struct trec_per_cpu_record *out = ((struct vma_text *)arg)->rec;
	struct trec_exec_file_key key = { 0 };
	struct trec_exec_file_value *v;
	/* Pointers by probe read: the verifier searches vmlinux's BTF by name
	 * for pointers loaded directly (this path is rare; the sampler's
	 * task->mm, on every sample, stays a direct load). */
	struct file *f = BPF_CORE_READ(vma, vm_file);
	__u64 start = vma->vm_start, bias;

	if (!(vma->vm_flags & 0x4)) /* VM_EXEC */
		return 0;
	if (f) {
		struct inode *ino = BPF_CORE_READ(f, f_inode);

		key.dev = BPF_CORE_READ(ino, i_sb, s_dev);
		key.inode = BPF_CORE_READ(ino, i_ino);
		if (bpf_core_field_exists(ino->i_mtime_sec))
			key.mtime_ns = BPF_CORE_READ(ino, i_mtime_sec) * 1000000000ULL +
				       BPF_CORE_READ(ino, i_mtime_nsec);
		key.offset = vma->vm_pgoff << 12;
	} else if ((__u64)BPF_CORE_READ(vma, vm_mm, context.vdso) != start) {
		/* Anonymous executable memory is JIT code: frame pointers, as
		 * trecord's next sync of the process will also say. */
		out->vma_start = start;
		out->vma_end = vma->vm_end;
		out->vma_unwinder = TREC_UNWIND_FRAME_POINTER;
		return 0;
	}
	v = bpf_map_lookup_elem(&exec_files, &key);
	if (!v)
		return 0;
	bias = start - (key.offset + v->vaddr_minus_offset);
	if (bias & ~TREC_BIAS_MASK)
		return 0;
	out->vma_start = start;
	out->vma_end = vma->vm_end;
	out->vma_file_id = v->file_id;
	out->vma_bias = bias;
	out->vma_unwinder = v->unwinder == TREC_UNWIND_FRAME_POINTER || v->unwinder == TREC_UNWIND_GO
				? v->unwinder
				: TREC_PROG_UNWIND_NATIVE;
	return 0;
}
#endif

/*
 * resolve_text for a pc the trie does not know: through the VMA that
 * holds it, if its file is one trecord has described (a process just
 * exec'd, a library just mapped). -1 if not. A subprogram
 * (TREC_SUBPROG): its VMA callback is verified once per program.
 */
TREC_SUBPROG int resolve_text_vma(struct trec_per_cpu_record *rec, __u64 pc)
{
	struct trec_unwind_state *st;

	if (!rec)
		return -1;
	st = &rec->state;

#ifndef TREC_TESTING_OFFLINE
	if (!(pc >= rec->vma_start && pc < rec->vma_end)) {
		struct vma_text t = { .rec = rec };

		rec->vma_start = rec->vma_end = rec->vma_file_id = rec->vma_bias = 0;
		rec->vma_unwinder = 0;
		bpf_find_vma(bpf_get_current_task_btf(), pc, vma_to_text, &t, 0);
	}
#endif
	if (!(pc >= rec->vma_start && pc < rec->vma_end))
		return -1;
	st->text_file_id = rec->vma_file_id;
	st->text_bias = rec->vma_bias;
	st->text_offset = pc - rec->vma_bias;
	increment_metric(TREC_METRIC_PC_VIA_VMA);
	return rec->vma_unwinder;
}

/* Moves the cursor past its frame: the frame is pushed and the cursor
 * moves to its caller. TREC_NATIVE_MOVED, or the program to go on with
 * (TREC_PROG_UNWIND_STOP when the trace is complete or failed). */
#define TREC_NATIVE_MOVED (-1)
static __always_inline int native_step_move(struct trec_per_cpu_record *rec)
{
	bool stop;

	if (push_native_frame(rec))
		return TREC_PROG_UNWIND_STOP;
	rec->state.native_frames++;
	if (trec_unwind_one_frame(rec, &stop) || stop)
		return defer_or_retry(rec) ? TREC_PROG_UNWIND_NATIVE : TREC_PROG_UNWIND_STOP;
	return TREC_NATIVE_MOVED;
}

/* The moved cursor's mapping is resolved. Returns the program for the
 * caller, or TREC_PROG_UNWIND_STOP. defer_unsynced: a pc no VMA lookup
 * knows in an unsynced process defers the walk (a constant at each call
 * site: the Python program's call chain has no stack left for it). */
static __always_inline int native_step_resolve(void *ctx, struct trec_per_cpu_record *rec,
					       bool defer_unsynced)
{
	struct trec_unwind_state *st = &rec->state;
	int mapped;

	mapped = resolve_text(st, rec->mappings_pid, st->pc);
	if (mapped < 0) {
		/* Unknown pc: most likely a library mapped since the last
		 * sync. Ask for a resync; meanwhile its VMA may tell. */
		replay_stop_logging(st);
		report_pid(ctx, ((__u64)rec->trace.pid << 32) | rec->trace.tid,
			   TREC_REPORT_UNKNOWN_PC);
		mapped = resolve_text_vma(rec, st->pc);
	}
	/* Not synced yet, its leaf's file known from another process (a
	 * vdso leaf, say), this one's not: wait for the sync from here. */
	if (defer_unsynced && mapped < 0 && !rec->mappings_pid && defer_no_pid(rec))
		return TREC_PROG_UNWIND_STOP;
	if (mapped < 0) {
		/* Keep the raw pc. */
		push_absolute_frame(rec, st->pc);
		set_error(st, TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION, TREC_METRIC_UNKNOWN_PC);
		return TREC_PROG_UNWIND_STOP;
	}
	return next_unwinder(rec, mapped);
}

/* The frame at the cursor is pushed; the cursor moves to its caller and
 * the caller's mapping is resolved. Returns the program for the caller, or
 * TREC_PROG_UNWIND_STOP when the trace is complete or failed. */
static __always_inline int unwind_native_step_opt(void *ctx, struct trec_per_cpu_record *rec,
						  bool defer_unsynced)
{
	int next = native_step_move(rec);

	return next == TREC_NATIVE_MOVED ? native_step_resolve(ctx, rec, defer_unsynced) : next;
}

/* The deferred walk's step (record/unwind/deferred/deferred_walk.c). */
static __always_inline __attribute__((unused)) int
unwind_native_step(void *ctx, struct trec_per_cpu_record *rec)
{
	return unwind_native_step_opt(ctx, rec, true);
}

struct native_loop {
	void *ctx;
	struct trec_per_cpu_record *rec;
};

/* bpf_loop's callback: one frame, or the rest of the stack replayed
 * (stack_replay.h); 1 ends the loop. A replay is tried at each cursor a
 * step moved to: no other may start one (the leaf is frame 0, an
 * interpreter's hand-over stops the log, a retry comes back to a cursor
 * tried already). It is tried before the cursor's pc is resolved: the old
 * walk's lookup of that pc is among what the replay proves unchanged (its
 * pages and files), and a replayed sample (`chain`) skips it. */
static long native_loop_step(__u64 i, void *arg)
{
	struct native_loop *l = arg;
	int next = native_step_move(l->rec);

	if (next == TREC_NATIVE_MOVED) {
		if (replay_at_cursor(l->rec) && replay_rest(l->rec)) {
			l->rec->loop_next = TREC_PROG_UNWIND_STOP;
			return 1;
		}
		next = native_step_resolve(l->ctx, l->rec, true);
	}
	l->rec->loop_next = next;
	return next != TREC_PROG_UNWIND_NATIVE;
}

TREC_UNWINDER(trec_unwind_native)
{
	struct native_loop l = {
		.ctx = ctx,
		.rec = get_per_cpu_record(),
	};
	int next;

	if (!l.rec)
		return 0;
	l.rec->loop_next = TREC_PROG_UNWIND_STOP;
	bpf_loop(TREC_NATIVE_FRAMES_PER_PROG, native_loop_step, &l, 0);
	next = l.rec->loop_next;
	if (next == TREC_PROG_UNWIND_STOP)
		replay_finish(l.rec);
	tail_call(ctx, progs, l.rec, next);
	return 0;
}

TREC_UNWINDER(trec_unwind_stop)
{
	struct trec_per_cpu_record *rec = get_per_cpu_record();

	if (rec)
		finish_trace(rec);
	return 0;
}

/* ---- interpreters ------------------------------------------------------ */

/* CPython 3.11-3.13 (issue 8): trec_unwind_python, slot
 * TREC_PROG_UNWIND_PYTHON; routed to by next_unwinder() through
 * interpreter_offsets, which trecord fills (record/interp/python/python_sync.h). */
#include "python_prog.h"
/* PHP 8 (Zend), issue 14: trec_unwind_php, slot TREC_PROG_UNWIND_PHP. */
#include "php_prog.h"
/* Perl 5 (issue 14): trec_unwind_perl, slot TREC_PROG_UNWIND_PERL. */
#include "perl_prog.h"
/* Ruby (MRI) 3.1 (issue 14): trec_unwind_ruby, slot TREC_PROG_UNWIND_RUBY. */
#include "ruby_prog.h"

/*
 * Starts the user part of a trace whose header is filled and whose cursor
 * holds the leaf registers: checks that the pid is synced, resolves the
 * leaf pc and hands over to its unwinder.
 */
#ifndef TREC_TESTING_OFFLINE
/*
 * Whether the current process still runs the image of parent, the tgid
 * that forked it: neither it nor the parent has exec'd since the fork
 * (exec bumps self_exec_id; a fork copies the parent's into
 * parent_exec_id), and it was not reparented.
 */
static __always_inline bool runs_parent_image(__u32 parent)
{
	struct task_struct *me = bpf_get_current_task_btf();
	struct task_struct *leader = BPF_CORE_READ(me, group_leader);
	struct task_struct *p = BPF_CORE_READ(leader, real_parent);
	__u64 at_fork = BPF_CORE_READ(leader, parent_exec_id);

	return BPF_CORE_READ(p, tgid) == parent && BPF_CORE_READ(leader, self_exec_id) == at_fork &&
	       BPF_CORE_READ(p, self_exec_id) == at_fork;
}
#endif

/*
 * The pid whose trie entries describe pid's mappings, 0 if none do yet.
 * A subprogram (TREC_SUBPROG) that loads task->mm once: the verifier
 * searches vmlinux's BTF by name for every pointer it sees loaded from a
 * task, on every path, and each search cost about 0.9 ms of trecord's
 * start.
 */
TREC_SUBPROG int trec_mappings_pid(__u32 pid)
{
#ifndef TREC_TESTING_OFFLINE
	const struct mm_struct *mm = bpf_get_current_task_btf()->mm;
#else
	const struct mm_struct *mm = NULL;
#endif

	if (pid_is_synced(pid, mm))
		return pid;
#ifndef TREC_TESTING_OFFLINE
	__u32 *parent = bpf_map_lookup_elem(&fork_parents, &pid);

	if (parent && pid_is_synced(*parent, mm) && runs_parent_image(*parent)) {
		increment_metric(TREC_METRIC_PID_VIA_PARENT);
		return *parent;
	}
#endif
	return 0;
}

static __always_inline int collect_trace_in(void *ctx, void *progs,
					    struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	__u64 pid_tgid = ((__u64)rec->trace.pid << 32) | rec->trace.tid;
	int mapped;

	/* A child unwound with its parent's entries is not reported: the
	 * fork event already has trecord copy them under its own pid. */
	rec->mappings_pid = trec_mappings_pid(rec->trace.pid);
	rec->vma_start = rec->vma_end = 0;
	st->stack_lo = st->sp;
	replay_begin(rec);
	mapped = rec->mappings_pid ? resolve_text(st, rec->mappings_pid, st->pc) : -1;
	if (mapped < 0) {
		replay_stop_logging(st);
		report_pid(ctx, pid_tgid, rec->mappings_pid ? TREC_REPORT_UNKNOWN_PC
							    : TREC_REPORT_NEW_PID);
		mapped = resolve_text_vma(rec, st->pc);
	}
	/* Not synced yet: trecord finishes the walk after the sync. */
	if (mapped < 0 && !rec->mappings_pid && defer_no_pid(rec))
		return 0;
	if (mapped < 0) {
		/* Never drop the sample: its leaf pc is still worth a frame. */
		push_absolute_frame(rec, st->pc);
		if (rec->mappings_pid) {
			set_error(st, TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION, TREC_METRIC_UNKNOWN_PC);
		} else {
			increment_metric(TREC_METRIC_PID_UNKNOWN);
			set_error(st, TREC_ERR_NO_PID_INFO, -1);
		}
		finish_trace(rec);
		return 0;
	}
	tail_call(ctx, progs, rec, next_unwinder(rec, mapped));
	return 0;
}

/* A cpu-clock sample's trace (and the offline harness's entry). */
static __always_inline int collect_trace(void *ctx, struct trec_per_cpu_record *rec)
{
	return collect_trace_in(ctx, &unwinder_progs, rec);
}

#ifndef TREC_TESTING_OFFLINE

#if defined(__TARGET_ARCH_x86)
#include "user_regs_x86.h"
#elif defined(__TARGET_ARCH_arm64)
#include "user_regs_arm64.h"
#endif

char LICENSE[] SEC("license") = "Dual MIT/GPL";

static __always_inline int is_followed(__u32 tgid)
{
	return follow_all || bpf_map_lookup_elem(&followed_pids, &tgid);
}

static __always_inline int passes_filters(__u64 pid_tgid)
{
	if (filter_uid != TREC_NO_UID && (__u32)bpf_get_current_uid_gid() != filter_uid)
		return 0;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return 0;
	if (!filter_num_tids)
		return 1;
	for (int i = 0; i < TREC_MAX_FILTER_TIDS; i++)
		if (i < filter_num_tids && filter_tids[i] == (__u32)pid_tgid)
			return 1;
	return 0;
}

/*
 * The fallback when the stack map cannot take a stack (its hash bucket
 * holds another one: -EEXIST as the map fills): the kernel stack goes into
 * the trace itself, as leading TREC_FRAME_KERNEL frames. The raw pcs land
 * in the frames' tail first, which the user stack rarely reaches.
 */
#define TREC_KSTACK_SCRATCH (TREC_MAX_FRAMES - (TREC_KERNEL_STACK_DEPTH * 8 + 23) / 24)

static __always_inline void push_kernel_frames(void *ctx, struct trec_per_cpu_record *rec,
					       __u64 skip)
{
	__u64 *pcs = (__u64 *)&rec->trace.frames[TREC_KSTACK_SCRATCH];
	long n = bpf_get_stack(ctx, pcs, TREC_KERNEL_STACK_DEPTH * 8, skip);

	if (n <= 0)
		return;
	n /= 8;
	for (int i = 0; i < TREC_KERNEL_STACK_DEPTH && i < n; i++) {
		struct trec_frame *f = &rec->trace.frames[i];

		f->file_id = 0;
		f->addr_or_line = pcs[i];
		f->kind = TREC_FRAME_KERNEL;
		f->flags = i ? TREC_FRAME_F_RETURN_ADDRESS : 0;
		rec->trace.num_frames = i + 1;
	}
}

/* Past the CPU budget (cpu_budget.h): the leaf alone, resolved if the trie
 * knows its mapping, then the THROTTLED error frame. */
static __always_inline int send_throttled(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	__u32 pid = trec_mappings_pid(rec->trace.pid);
	int mapped = pid ? resolve_text(st, pid, st->pc) : -1;

	st->anon_code = mapped == TREC_UNWIND_ANON_DELTAS;
	if (mapped < 0)
		push_absolute_frame(rec, st->pc);
	else
		push_native_frame(rec);
	set_error(st, TREC_ERR_THROTTLED, TREC_METRIC_THROTTLED);
	finish_trace(rec);
	return 0;
}

#include "sample_task.h"

SEC("perf_event")
int trec_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();
	struct trec_per_cpu_record *rec;
	struct trec_trace *t;
	bool has_mm;
	int mode;

	if (!is_followed(pid_tgid >> 32) || !passes_filters(pid_tgid))
		return 0;
	/* Read before the kernel stack's branches: the verifier checks this
	 * pointer load (searches of vmlinux's BTF by name) on one path here,
	 * not on each of the three that reach the test below. */
	has_mm = task->mm != NULL;
	rec = get_per_cpu_record();
	if (!rec)
		return 0;
	increment_metric(TREC_METRIC_SAMPLES);
	trace_reset(rec);
	t = &rec->trace;
	t->pid = pid_tgid >> 32;
	t->tid = (__u32)pid_tgid;
	t->cpu = bpf_get_smp_processor_id();
	t->ktime_ns = bpf_ktime_get_ns();
	read_comm(t->comm, task);

	if (!trec_ctx_user_mode(ctx))
		t->flags |= TREC_TRACE_F_KERNEL_MODE;
	if (is_self(t->pid))
		return send_self(rec);
	if (t->flags & TREC_TRACE_F_KERNEL_MODE) {
		t->kernel_stack_id = bpf_get_stackid(ctx, &kernel_stackmap, 0);
		if (t->kernel_stack_id < 0) {
			increment_metric(TREC_METRIC_KERNEL_STACK_FAILED);
			push_kernel_frames(ctx, rec, 0);
		}
	}

	/* Kernel threads and the idle task have no user stack: the kernel
	 * stack is the whole sample. */
	if (!has_mm) {
		send_trace(rec);
		return 0;
	}
	mode = get_user_regs(ctx, task, &rec->state);
	if (mode < 0) {
		set_error(&rec->state, TREC_ERR_NATIVE_NO_USER_REGS, TREC_METRIC_NO_USER_REGS);
		finish_trace(rec);
		return 0;
	}
	if (budget_exhausted(rec, t->ktime_ns))
		return send_throttled(rec);
	return collect_trace(ctx, rec);
}

/* Off-CPU stacks (issue 13): trec_offcpu_switch on sched_switch. */
#include "offcpu_prog.h"

/* fork/exec/exit/comm -> pid events (process tracking). */
#include "pid_tracking_prog.h"

#endif /* !TREC_TESTING_OFFLINE */
