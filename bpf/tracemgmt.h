/* SPDX-License-Identifier: MIT */
/*
 * Helpers that manage the per-CPU trace record: reset, frame pushes, error
 * and metric accounting, the tail-call budget, pid reports and the final
 * send to the ring buffer.
 *
 * Uses only maps from trec_maps.h and standard BPF helper names, so the
 * offline harness can compile it as userspace C (-DTREC_TESTING_OFFLINE)
 * with its own definitions of the helpers.
 */
#ifndef TREC_TRACEMGMT_H
#define TREC_TRACEMGMT_H

#include "trec_maps.h"

/* Load-time knobs (.rodata). The offline shim may define TREC_RODATA to
 * make them plain globals it can set. */
#ifndef TREC_RODATA
#define TREC_RODATA(type, name, value) const volatile type name = value
#endif

/* State trecord changes while recording (.bss, written through the
 * skeleton). Offline, a plain global. */
#ifndef TREC_BSS
#define TREC_BSS(type, name) volatile type name
#endif

/* Hides a value from the optimizer so a following mask is kept: clang
 * otherwise drops it after a bounds check on another register copy, and
 * the verifier then sees an unbounded index. */
#define TREC_BARRIER_VAR(x) asm volatile("" : "+r"(x))

/* A function the verifier checks once, on its own (a global BPF
 * subprogram): the paths of its callers and its own paths add up instead
 * of multiplying. Its pointer arguments may be NULL to the verifier, so it
 * checks them. Offline (the harness, unit tests): an ordinary static
 * function, which an includer may leave unused. */
#ifdef TREC_TESTING_OFFLINE
#define TREC_SUBPROG static __attribute__((unused))
#else
#define TREC_SUBPROG __attribute__((noinline))
#endif

#include "stack_replay_log.h" /* uses TREC_SUBPROG */
#include "text_page_cache.h"

/* The kernel allows 33 tail calls; stopping at 29 leaves room to send. */
#define TREC_MAX_TAIL_CALLS 29

static __always_inline struct trec_per_cpu_record *get_per_cpu_record(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&per_cpu_records, &cpu);
}

static __always_inline void increment_metric(__u32 id)
{
	__u64 *v = bpf_map_lookup_elem(&metrics, &id);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Records the first error of a trace; the abort frame and metric follow
 * when the trace is sent. Returns -1 so callers can `return set_error()`. */
static __always_inline int set_error(struct trec_unwind_state *st, __u32 err, __s32 metric)
{
	if (st->unwind_error == TREC_ERR_OK) {
		st->unwind_error = err;
		st->error_metric = metric;
	}
	return -1;
}

/* Starts a new trace. Only the header and cursor are cleared: frames past
 * num_frames are never sent. */
static __always_inline void trace_reset(struct trec_per_cpu_record *rec)
{
	struct trec_trace *t = &rec->trace;
	struct trec_unwind_state *st = &rec->state;

	t->msg_type = TREC_MSG_TRACE;
	t->pid = 0;
	t->tid = 0;
	t->cpu = 0;
	t->ktime_ns = 0;
	t->kernel_stack_id = -1;
	t->num_frames = 0;
	t->flags = 0;
	t->offcpu_ns = 0;
	t->seq = 0;
	t->delta_frames = 0;
	t->pad = 0;
	/* The stack window's bytes stay (rec->win): win_base 0 says they are
	 * not valid. */
	__builtin_memset(st, 0, sizeof(*st));
	st->error_metric = -1;
	/* Its frames are still in the record: only this trace may reuse them. */
	st->replay_from = rec->replay_valid;
	rec->replay_valid = 0;
	/* Only this trace may be sent as a delta of the last one. */
	st->delta_base = rec->last_sent;
	rec->last_sent = 0;
	rec->tail_calls = 0;
	rec->unwinders_done = 0;
	rec->python_frame = 0;
	rec->py_memo_code = 0;
	rec->php_frame = 0;
	rec->php_fn.func = 0;
	rec->perl.si = 0;
	rec->perl.memo_cv = 0;
	rec->ruby_cfp = 0;
	rec->rb_iseq.iseq = 0;
}

/*
 * Appends a frame. At most TREC_MAX_NON_ERROR_FRAMES frames are pushed
 * this way, so the abort frame always fits. On overflow the trace ends
 * with STACK_LENGTH_EXCEEDED.
 */
static __always_inline int push_frame(struct trec_per_cpu_record *rec, __u64 file_id,
				      __u64 addr, __u8 kind, __u8 flags)
{
	__u32 n = rec->trace.num_frames;
	struct trec_frame *f;

	if (n >= TREC_MAX_NON_ERROR_FRAMES)
		return set_error(&rec->state, TREC_ERR_STACK_LENGTH_EXCEEDED,
				 TREC_METRIC_STACK_LENGTH_EXCEEDED);
	TREC_BARRIER_VAR(n);
	f = &rec->trace.frames[n & (TREC_MAX_FRAMES - 1)];
	f->file_id = file_id;
	f->addr_or_line = addr;
	f->kind = kind;
	f->flags = flags;
	rec->trace.num_frames = n + 1;
	return 0;
}

static __always_inline int push_native_frame(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	__u8 flags = st->return_address ? TREC_FRAME_F_RETURN_ADDRESS : 0;

	/* JIT code: no file, text_offset is the runtime pc (bias 0). */
	if (!st->text_file_id)
		flags |= TREC_FRAME_F_ABSOLUTE;
	/* Anonymous code with synthetic deltas: the pc, as for other JIT code. */
	if (st->anon_code)
		return push_frame(rec, 0, st->pc, TREC_FRAME_NATIVE,
				  flags | TREC_FRAME_F_ABSOLUTE);
	return push_frame(rec, st->text_file_id, st->text_offset, TREC_FRAME_NATIVE, flags);
}

/* A frame for a pc no mapping explains: the raw runtime address. */
static __always_inline int push_absolute_frame(struct trec_per_cpu_record *rec, __u64 pc)
{
	__u8 flags = TREC_FRAME_F_ABSOLUTE;

	if (rec->state.return_address)
		flags |= TREC_FRAME_F_RETURN_ADDRESS;
	return push_frame(rec, 0, pc, TREC_FRAME_NATIVE, flags);
}

/* The final error frame; uses the slot push_frame() keeps free. */
static __always_inline void push_abort_frame(struct trec_per_cpu_record *rec, __u32 err)
{
	__u32 n = rec->trace.num_frames;
	struct trec_frame *f;

	if (n >= TREC_MAX_FRAMES)
		return;
	TREC_BARRIER_VAR(n);
	f = &rec->trace.frames[n & (TREC_MAX_FRAMES - 1)];
	f->file_id = 0;
	f->addr_or_line = err;
	f->kind = TREC_FRAME_UNKNOWN;
	f->flags = TREC_FRAME_F_ERROR;
	rec->trace.num_frames = n + 1;
}

static __always_inline int unwinder_is_done(const struct trec_per_cpu_record *rec, int prog)
{
	return (rec->unwinders_done >> prog) & 1;
}

static __always_inline void unwinder_mark_done(struct trec_per_cpu_record *rec, int prog)
{
	rec->unwinders_done |= 1U << prog;
}

TREC_RODATA(__u64, report_interval_ns, 250000000ULL);

/*
 * Asks userspace to (re)sync a pid: an entry in pid_events, at most one per
 * pid per report_interval_ns, and one wake-up on report_events that stays
 * latched in inhibit_events until userspace has drained pid_events.
 */
static __always_inline void report_pid(void *ctx, __u64 pid_tgid, __u32 reason)
{
	__u32 pid = pid_tgid >> 32;
	__u64 now = bpf_ktime_get_ns();
	__u64 *last = bpf_map_lookup_elem(&reported_pids, &pid);
	__u32 ev = TREC_EVENT_PID_REPORT;
	__u8 one = 1;

	if (last && now - *last < report_interval_ns)
		return;
	bpf_map_update_elem(&reported_pids, &pid, &now, BPF_ANY);
	if (bpf_map_update_elem(&pid_events, &pid_tgid, &reason, BPF_ANY)) {
		increment_metric(TREC_METRIC_PID_REPORT_FAILED);
		return;
	}
	increment_metric(TREC_METRIC_PID_REPORTED);
	if (bpf_map_update_elem(&inhibit_events, &ev, &one, BPF_NOEXIST) == 0)
		bpf_perf_event_output(ctx, &report_events, BPF_F_CURRENT_CPU, &pid, sizeof(pid));
}

#include "cpu_budget.h"

/* Wake the reader only when this much is pending; it also polls on a timer. */
#define TREC_RINGBUF_WAKEUP_BYTES (1U << 20)

/* Sends the header and the first n frames of t. 0 if sent. */
static __always_inline int ringbuf_send(struct trec_trace *t, __u64 n)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	/* Re-derive the bound: the verifier forgets it across stores. */
	if (n > TREC_MAX_FRAMES)
		n = TREC_MAX_FRAMES;
	TREC_BARRIER_VAR(n);
	n &= 2 * TREC_MAX_FRAMES - 1;
	if (n > TREC_MAX_FRAMES)
		n = TREC_MAX_FRAMES;
	/* Asked every 16th trace (of this CPU): a helper call less on the
	 * others, and 16 traces are far from the ring's size. */
	if (!(t->seq & 15) &&
	    bpf_ringbuf_query(&trace_events, BPF_RB_AVAIL_DATA) >= TREC_RINGBUF_WAKEUP_BYTES)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&trace_events, t, TREC_TRACE_HEADER_SIZE +
			       n * sizeof(struct trec_frame), flags)) {
		increment_metric(TREC_METRIC_TRACES_LOST_RINGBUF);
		return -1;
	}
	increment_metric(TREC_METRIC_TRACES_SENT);
	return 0;
}

/* Sends the used part of a trace: header + num_frames frames. 0 if sent. */
static __always_inline int output_trace(struct trec_trace *t)
{
	return ringbuf_send(t, t->num_frames);
}

#include "trace_delta.h"

/* A thread blocked: its trace waits in offcpu_pending until it runs again
 * and the wait's duration is known (offcpu_prog.h). */
static __always_inline void park_offcpu(struct trec_per_cpu_record *rec)
{
	__u32 tid = rec->trace.tid;

	if (!bpf_map_update_elem(&offcpu_pending, &tid, &rec->trace, BPF_NOEXIST))
		return;
	/* Still parked: its end was never seen. The new wait replaces it. */
	if (bpf_map_lookup_elem(&offcpu_pending, &tid))
		increment_metric(TREC_METRIC_OFFCPU_NO_SWITCH_IN);
	if (bpf_map_update_elem(&offcpu_pending, &tid, &rec->trace, BPF_ANY))
		increment_metric(TREC_METRIC_OFFCPU_PENDING_FULL);
}

/* A finished trace goes to userspace, or, taken as a thread blocked, is
 * parked. Both kinds began at their program's entry (ktime_ns): the BPF
 * time they took, the send's copy included, counts against this CPU's
 * budget. */
static __always_inline void send_trace(struct trec_per_cpu_record *rec)
{
	if (!(rec->trace.flags & TREC_TRACE_F_OFFCPU))
		send_record_trace(rec);
	else
		park_offcpu(rec);
	budget_charge(rec);
}

/* The context of an interpreter walk's bpf_loop callback: the record and
 * the process's info (its runtime's *_proc_info). What the walk changes
 * (its cursor, rec->loop_next) is in the record, where the verifier
 * keeps no values that would make it go over the callback again. */
struct interp_loop {
	struct trec_per_cpu_record *rec;
	const void *info;
};

/* Ends a trace: abort frame and metric for the error, if any, then send.
 * A subprogram (TREC_SUBPROG): verified once per program, not on each
 * path of each of its callers (trec_sample ends traces in six places). */
TREC_SUBPROG int trec_finish_trace(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st;

	if (!rec)
		return 0;
	st = &rec->state;
	if (st->deferred) /* sent as a deferral (deferred.h) */
		return 0;
	if (st->unwind_error == TREC_ERR_OK && rec->trace.num_frames == 0)
		set_error(st, TREC_ERR_EMPTY_STACK, -1);
	if (st->unwind_error != TREC_ERR_OK)
		push_abort_frame(rec, st->unwind_error);
	if (st->error_metric >= 0)
		increment_metric(st->error_metric);
	if (st->native_frames)
		add_metric(TREC_METRIC_NATIVE_FRAMES, st->native_frames);
	send_trace(rec);
	return 0;
}

static __always_inline void finish_trace(struct trec_per_cpu_record *rec)
{
	trec_finish_trace(rec);
}

/*
 * Continues with program `next` of progs (unwinder_progs, or offcpu_progs
 * in the off-CPU copies). Past the budget the trace is ended with
 * MAX_TAIL_CALLS; if the tail call itself fails, also ended here, so a
 * partial stack is always sent.
 */
static __always_inline void tail_call(void *ctx, void *progs, struct trec_per_cpu_record *rec,
				      int next)
{
	if (next != TREC_PROG_UNWIND_STOP) {
		if (rec->tail_calls >= TREC_MAX_TAIL_CALLS) {
			set_error(&rec->state, TREC_ERR_MAX_TAIL_CALLS, TREC_METRIC_MAX_TAIL_CALLS);
			next = TREC_PROG_UNWIND_STOP;
		} else {
			rec->tail_calls++;
			bpf_tail_call(ctx, progs, next);
			increment_metric(TREC_METRIC_TAIL_CALL_FAILED);
		}
	}
	finish_trace(rec);
}

/*
 * Defines an unwinder program twice from one body: `name`, a perf_event
 * program for unwinder_progs (cpu-clock samples), and `name`_offcpu, a
 * tracing program for offcpu_progs (stacks taken in sched_switch; a prog
 * array only takes programs of its first user's type). The body sees ctx
 * and progs, the array its tail calls go through:
 *
 *	TREC_UNWINDER(trec_unwind_foo)
 *	{
 *		...
 *		tail_call(ctx, progs, rec, next);
 *		return 0;
 *	}
 *
 * record/bpf_loader.c puts both in the slot of the same enum trec_unwinder.
 */
#define TREC_UNWINDER(name)                                                   \
	static __always_inline int name##_body(void *ctx, void *progs);        \
	SEC("perf_event") int name(void *ctx)                                 \
	{                                                                     \
		return name##_body(ctx, &unwinder_progs);                      \
	}                                                                     \
	SEC("tp_btf/sched_switch") int name##_offcpu(void *ctx)               \
	{                                                                     \
		return name##_body(ctx, &offcpu_progs);                        \
	}                                                                     \
	static __always_inline int name##_body(void *ctx, void *progs)

/* The trie's answer for pc of pid into the cursor's page memo (from
 * text_page_cache.h when the maps are unchanged); 0, or -1 if no mapping
 * of the pid contains pc. A subprogram: three callers, checked once. */
TREC_SUBPROG int text_lookup(struct trec_unwind_state *st, __u32 pid, __u64 pc)
{
	if (!st || !trie_lookup_cached(pid, pc, &st->memo_text_file_id,
				       &st->memo_text_bias_and_unwinder))
		return -1;
	st->memo_text_page = (pc >> 12) + 1;
	replay_note_page(st, pc, st->memo_text_file_id, st->memo_text_bias_and_unwinder);
	return 0;
}

/*
 * Resolves pc through the LPM trie: file id, bias and ELF vaddr into the
 * cursor. Returns the unwinder for the mapping, or -1 if no mapping of the
 * pid contains pc.
 */
static __always_inline int resolve_text(struct trec_unwind_state *st, __u32 pid, __u64 pc)
{
	__u64 bias;

	/* One pid per trace: the page alone keys the memo. */
	if ((pc >> 12) + 1 != st->memo_text_page && text_lookup(st, pid, pc))
		return -1;
	bias = st->memo_text_bias_and_unwinder & TREC_BIAS_MASK;
	st->text_file_id = st->memo_text_file_id;
	st->text_bias = bias;
	st->text_offset = pc - bias;
	return st->memo_text_bias_and_unwinder >> TREC_UNWINDER_SHIFT;
}

/* The pid's "synced" marker {96, pid, 0}, if it names the image of mm,
 * the current process's (trec_types.h; the current process is pid, or
 * runs its parent pid's image). Offline, mm is not read. */
struct mm_struct;

static __always_inline int pid_is_synced(__u32 pid, const struct mm_struct *mm)
{
	__u64 stack, brk;

	/* pc 0: the marker {pid, 0}, in a slot no text page keys */
	if (!trie_lookup_cached(pid, 0, &stack, &brk))
		return 0;
#ifndef TREC_TESTING_OFFLINE
	if (stack | brk)
		return mm && mm->start_stack == stack && mm->start_brk == brk;
#else
	(void)stack;
	(void)brk;
	(void)mm;
#endif
	return 1;
}

/* Which program unwinds the frame at the cursor: an interpreter when its
 * loop contains the pc and it has not finished its part of the stack. */
static __always_inline int next_unwinder(struct trec_per_cpu_record *rec, int mapped)
{
	struct trec_unwind_state *st = &rec->state;
	struct trec_offset_range *r;
	__u64 off = st->text_offset;
	int prog;

	/* Mappings name their own unwinder (e.g. a JIT region); anything
	 * unexpected falls back to native. Frame-pointer code stays in the
	 * native program. */
	st->fp_frame = mapped == TREC_UNWIND_FRAME_POINTER;
	st->anon_code = mapped == TREC_UNWIND_ANON_DELTAS;
	st->go_code = mapped == TREC_UNWIND_GO;
	if (st->fp_frame || st->anon_code || st->go_code) {
		replay_stop_logging(st);
		return TREC_PROG_UNWIND_NATIVE;
	}
	if (mapped > TREC_PROG_UNWIND_NATIVE && mapped < TREC_PROG_COUNT) {
		replay_stop_logging(st);
		return mapped;
	}
	if (st->text_file_id == st->memo_no_interp)
		return TREC_PROG_UNWIND_NATIVE;
	r = bpf_map_lookup_elem(&interpreter_offsets, &st->text_file_id);
	if (!r) {
		st->memo_no_interp = st->text_file_id;
		replay_note_file(st, st->text_file_id);
		return TREC_PROG_UNWIND_NATIVE;
	}
	replay_stop_logging(st);
	if (!((off >= r->lower1 && off < r->upper1) || (off >= r->lower2 && off < r->upper2)))
		return TREC_PROG_UNWIND_NATIVE;
	prog = r->program_index;
	if (prog <= TREC_PROG_UNWIND_NATIVE || prog >= TREC_PROG_COUNT ||
	    unwinder_is_done(rec, prog))
		return TREC_PROG_UNWIND_NATIVE;
	return prog;
}

#endif /* TREC_TRACEMGMT_H */
