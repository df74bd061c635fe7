/* SPDX-License-Identifier: MIT */
/*
 * The PHP (Zend) unwinder: walks the zend_execute_data chain from
 * executor_globals.current_execute_data and pushes one TREC_FRAME_PHP
 * frame per call frame.
 *
 * The native unwinder hands over when a native frame's pc lies inside
 * execute_ex, the VM loop (interpreter_offsets). One C-level call of
 * execute_ex runs a contiguous run of frames, ended by the user frame
 * that has ZEND_CALL_TOP set (entered from C: the script, or a callback
 * of zend_call_function). We push that run and give control back to the
 * native unwinder, which pushes the execute_ex frame itself and goes on;
 * the next execute_ex frame resumes the walk at rec->php_frame. Internal
 * functions (usort) are frames too, inside the run that called them.
 *
 * Line of a frame: its opline's lineno. With the hybrid VM and GCC's
 * global registers (Debian's build), execute_ex keeps the running
 * frame's opline in r15 and stores it into the frame only before calls:
 * when the sample's leaf is execute_ex itself (the native unwinder keeps
 * r15 for the leaf only), r15 is used if it points at one of the
 * innermost frame's opcodes.
 *
 * Included by bpf/php_prog.h; compiles as userspace C for the offline
 * harness (bpf/testing_shim.h).
 */
#ifndef TREC_PHP_UNWIND_H
#define TREC_PHP_UNWIND_H

#include "php_maps.h"
#include "tracemgmt.h"

static __always_inline int trec_php_done(struct trec_per_cpu_record *rec)
{
	unwinder_mark_done(rec, TREC_PROG_UNWIND_PHP);
	rec->php_frame = 0;
	return TREC_PROG_UNWIND_NATIVE;
}

/* An inline error frame; the native unwinder goes on without PHP frames. */
static __always_inline int trec_php_fail(struct trec_per_cpu_record *rec, enum trec_error err)
{
	increment_metric(TREC_METRIC_PHP_ERRORS);
	if (push_frame(rec, 0, err, TREC_FRAME_UNKNOWN, TREC_FRAME_F_ERROR))
		return TREC_PROG_UNWIND_STOP;
	return trec_php_done(rec);
}

/* Fields of a window of u64 words (a power of two of them: the mask
 * keeps the verifier's bounds; offsets are aligned to their size and
 * inside the window, trecord checks). */
static __always_inline __u64 trec_php_u64(const __u64 *w, __u32 nwords, __u32 off)
{
	return w[(off >> 3) & (nwords - 1)];
}

static __always_inline __u32 trec_php_u32(const __u64 *w, __u32 nwords, __u32 off)
{
	return (__u32)(trec_php_u64(w, nwords, off) >> ((off & 4) * 8));
}

/* A zend_function of PHP code (it has opcodes), not an internal one. */
static __always_inline bool trec_php_user_code(__u8 type)
{
	return type == TREC_PHP_USER_FUNCTION || type == TREC_PHP_EVAL_CODE;
}

/* Pushes the frame of func (a zend_function) at opline. *user: on entry,
 * whether this is the sampled frame; on return, whether it is PHP code
 * (which can end a run). 0 or an error code; -1 when the trace is full.
 * A subprogram (TREC_SUBPROG, at most 5 arguments): verified once, not
 * once per frame of trec_php_walk's loop. */
TREC_SUBPROG int trec_php_push(struct trec_per_cpu_record *rec,
			       const struct trec_php_proc_info *info, __u64 func, __u64 opline,
			       bool *user)
{
	__u64 op[TREC_PHP_OP_READ / 8] = {}, head[TREC_PHP_FN_READ / 8];
	struct trec_php_fn_memo *m;
	__u32 lineno = 0;
	bool leaf;

	if (!rec || !info || !user)
		return TREC_ERR_PHP_BAD_FUNCTION;
	m = &rec->php_fn;
	leaf = *user;
	*user = false;
	/* The function's fields, read once per trace (its frames repeat in
	 * a recursion); the memo names func only once all are read. */
	if (m->func != func) {
		m->func = 0;
		if (bpf_probe_read_user(head, sizeof(head), (void *)func))
			return TREC_ERR_PHP_BAD_FUNCTION;
		m->type = (__u8)head[0]; /* zend_function's first byte, in every kind */
		m->name = trec_php_u64(head, TREC_PHP_FN_READ / 8, info->fn_name);
		m->scope = trec_php_u64(head, TREC_PHP_FN_READ / 8, info->fn_scope);
		m->last = m->line_start = m->line_end = 0;
		m->opcodes = m->filename = 0;
		if (trec_php_user_code(m->type)) {
			__u32 n = TREC_PHP_OP_READ / 8, base = info->op_last;

			if (bpf_probe_read_user(op, sizeof(op), (void *)(func + base)))
				return TREC_ERR_PHP_BAD_FUNCTION;
			m->last = trec_php_u32(op, n, 0);
			m->opcodes = trec_php_u64(op, n, info->op_opcodes - base);
			m->filename = trec_php_u64(op, n, info->op_filename - base);
			m->line_start = trec_php_u32(op, n, info->op_line_start - base);
			m->line_end = trec_php_u32(op, n, info->op_line_end - base);
		}
		m->func = func;
	}
	*user = trec_php_user_code(m->type);
	if (*user) {
		/* The running opline of the sampled frame (see the top). */
		if (leaf && rec->state.r15 >= m->opcodes &&
		    rec->state.r15 < m->opcodes + (__u64)m->last * info->op_size &&
		    (rec->state.r15 - m->opcodes) % info->op_size == 0)
			opline = rec->state.r15;
		if (!opline ||
		    bpf_probe_read_user(&lineno, sizeof(lineno), (void *)(opline + info->op_lineno)))
			return TREC_ERR_PHP_BAD_OPLINE;
	}
	if (push_frame(rec, func,
		       (__u64)lineno << 32 | trec_php_object_id(m->type, m->line_start, m->line_end,
								 m->name, m->scope, m->filename,
								 m->opcodes),
		       TREC_FRAME_PHP, TREC_FRAME_F_PID_SPECIFIC))
		return -1;
	increment_metric(TREC_METRIC_PHP_FRAMES);
	return 0;
}

/* bpf_loop's callback: the frame at rec->php_frame. 1 ends the loop, its
 * result in rec->loop_next. */
static long php_loop_step(__u64 i, void *arg)
{
	struct interp_loop *l = arg;
	struct trec_per_cpu_record *rec = l->rec;
	const struct trec_php_proc_info *info = l->info;
	__u64 w[TREC_PHP_EXEC_READ / 8];
	__u32 n = TREC_PHP_EXEC_READ / 8, call_info;
	__u64 func, prev;
	bool user = rec->php_leaf;
	int err;

	rec->php_leaf = 0;
	if (bpf_probe_read_user(w, sizeof(w), (void *)rec->php_frame)) {
		rec->loop_next = trec_php_fail(rec, TREC_ERR_PHP_BAD_FRAME);
		return 1;
	}
	func = trec_php_u64(w, n, info->ed_func);
	prev = trec_php_u64(w, n, info->ed_prev);
	call_info = trec_php_u32(w, n, info->ed_call_info);
	/* A frame without a function names nothing: skipped. */
	if (func) {
		err = trec_php_push(rec, info, func, trec_php_u64(w, n, info->ed_opline), &user);
		if (err) {
			rec->loop_next = err < 0 ? TREC_PROG_UNWIND_STOP : trec_php_fail(rec, err);
			return 1;
		}
	} else {
		user = false;
	}
	rec->php_frame = prev;
	if (user && (call_info & TREC_PHP_CALL_TOP)) {
		/* Entered from C: the rest belongs to an outer execute_ex. */
		rec->loop_next = prev ? TREC_PROG_UNWIND_NATIVE : trec_php_done(rec);
		return 1;
	}
	if (!prev) {
		rec->loop_next = trec_php_done(rec);
		return 1;
	}
	return 0;
}

/*
 * The program body (bpf/php_prog.h wraps it). Returns the unwinder to
 * tail-call next: NATIVE when a run is done (or PHP failed), PHP when the
 * frame budget ran out mid-run, STOP when the trace is full. The frames
 * go through bpf_loop: the verifier checks one (32 unrolled took 11k
 * instructions).
 */
static __always_inline int trec_php_walk(struct trec_per_cpu_record *rec)
{
	const struct trec_php_proc_info *info;
	__u32 pid = rec->trace.pid;
	__u64 frame = rec->php_frame;

	info = bpf_map_lookup_elem(&php_procs, &pid);
	if (!info)
		return trec_php_fail(rec, TREC_ERR_PHP_NO_PROC_INFO);
	rec->php_leaf = 0;
	if (!frame) {
		if (bpf_probe_read_user(&frame, sizeof(frame), (void *)info->current_execute_data))
			return trec_php_fail(rec, TREC_ERR_PHP_BAD_GLOBALS);
		if (!frame)
			return trec_php_done(rec);
		rec->php_frame = frame;
		rec->php_leaf = 1;
	}
	rec->loop_next = TREC_PROG_UNWIND_PHP;
	bpf_loop(TREC_PHP_FRAMES_PER_PROGRAM, php_loop_step,
		 &(struct interp_loop){ .rec = rec, .info = info }, 0);
	return rec->loop_next;
}

#endif /* TREC_PHP_UNWIND_H */
