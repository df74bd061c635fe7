/* SPDX-License-Identifier: MIT */
/*
 * The CPython unwinder: walks the sampled thread's _PyInterpreterFrame
 * chain and pushes one TREC_FRAME_PYTHON frame per interpreter frame.
 *
 * The native unwinder hands over when a native frame's pc lies inside
 * _PyEval_EvalFrameDefault (interpreter_offsets). One C-level call of that
 * function runs a contiguous run of interpreter frames, ended by an entry
 * frame (3.11: is_entry; 3.12+: an owner == CSTACK shim after the run).
 * We push that run and give control back to the native unwinder, which
 * pushes the _PyEval_EvalFrameDefault frame itself and goes on; the next
 * _PyEval_EvalFrameDefault frame resumes the walk at rec->python_frame.
 * So native and Python frames interleave in their true order.
 *
 * Included by bpf/python_prog.h. As userspace C (bpf/testing_shim.h,
 * -DTREC_TESTING_OFFLINE) the includer may define TREC_PY_FSBASE() to
 * give the sampled thread's fs base (tests/unit/test_python_walk.c).
 */
#ifndef TREC_PYTHON_UNWIND_H
#define TREC_PYTHON_UNWIND_H

#include "python_maps.h"
#include "tracemgmt.h"

#ifndef TREC_PY_FSBASE
#ifdef TREC_TESTING_OFFLINE
/* The offline harness captures no thread pointer (and runs no Python). */
#define TREC_PY_FSBASE() 0ULL
#elif defined(__TARGET_ARCH_arm64)
/* TPIDR_EL0. glibc's arm64 TCB layout differs from x86-64's: the TSD
 * offsets trecord finds assume x86-64 (unverified on arm64). */
#define TREC_PY_FSBASE() (bpf_get_current_task_btf()->thread.uw.tp_value)
#else
/* The sampled thread's user fs base: glibc's thread pointer. */
#define TREC_PY_FSBASE() (bpf_get_current_task_btf()->thread.fsbase)
#endif
#endif

static __always_inline int trec_py_done(struct trec_per_cpu_record *rec)
{
	unwinder_mark_done(rec, TREC_PROG_UNWIND_PYTHON);
	rec->python_frame = 0;
	return TREC_PROG_UNWIND_NATIVE;
}

/*
 * A Python-level failure: an inline error frame, then the native unwinder
 * goes on without Python frames (they are marked done), so the rest of the
 * stack is still collected.
 */
static __always_inline int trec_py_fail(struct trec_per_cpu_record *rec, enum trec_error err)
{
	increment_metric(TREC_METRIC_PYTHON_ERRORS);
	if (push_frame(rec, 0, err, TREC_FRAME_UNKNOWN, TREC_FRAME_F_ERROR))
		return TREC_PROG_UNWIND_STOP;
	return trec_py_done(rec);
}

/* Thread state of the current thread via the autoTSSkey pthread key, then
 * its innermost interpreter frame (0 if none). Returns an error code. */
static __always_inline int trec_py_first_frame(const struct trec_py_proc_info *info,
					       __u64 *frame)
{
	struct {
		__s32 initialized;
		__u32 key;
	} tss;
	__u64 slot, tstate, p;

	if (bpf_probe_read_user(&tss, sizeof(tss), (void *)info->tss_addr) || !tss.initialized)
		return TREC_ERR_PYTHON_BAD_TSD;
	slot = TREC_PY_FSBASE() + (__s64)info->tsd_offset;
	if (info->tsd_indirect) {
		if (bpf_probe_read_user(&slot, sizeof(slot), (void *)slot))
			return TREC_ERR_PYTHON_BAD_TSD;
	} else if (tss.key >= TREC_PY_TSD_DIRECT_KEYS) {
		return TREC_ERR_PYTHON_BAD_TSD;
	}
	slot += (__u64)tss.key * info->tsd_multiplier;
	if (bpf_probe_read_user(&tstate, sizeof(tstate), (void *)slot) || !tstate)
		return TREC_ERR_PYTHON_BAD_TSD;

	p = tstate + info->tstate_frame;
	if (info->tstate_cframe != 0xffff) {
		if (bpf_probe_read_user(&p, sizeof(p), (void *)(tstate + info->tstate_cframe)) || !p)
			return TREC_ERR_PYTHON_BAD_TSD;
		p += info->cframe_current_frame;
	}
	if (bpf_probe_read_user(frame, sizeof(*frame), (void *)p))
		return TREC_ERR_PYTHON_BAD_FRAME;
	return TREC_ERR_OK;
}

/* A pointer field of the frame copy; offsets are 8-aligned (checked by
 * trecord), the clamp keeps the verifier's bounds. */
static __always_inline __u64 trec_py_word(const __u64 *w, __u16 off)
{
	__u32 i = off >> 3;

	if (i >= TREC_PY_FRAME_READ / 8)
		i = 0;
	return w[i];
}

/* The same for a PyFrameObject copy (3.8-3.10). */
static __always_inline __u64 trec_py_old_word(const __u64 *w, __u16 off)
{
	__u32 i = off >> 3;

	if (i >= TREC_PY_OLD_FRAME_READ / 8)
		i = 0;
	return w[i];
}

/* Object id of the code object at code, or 0 if it cannot be read; w is
 * room for TREC_PY_CODE_READ bytes. The window offsets are 4-aligned (ints)
 * and 8-aligned (pointers), checked by trecord; the clamps keep the
 * verifier's bounds. */
static __always_inline __u32 trec_py_code_id_in(const struct trec_py_proc_info *info, __u64 code,
						__u64 *w)
{
	__u64 ptrs[TREC_PY_ID_PTRS];
	__u32 ints[TREC_PY_ID_INTS];

	if (bpf_probe_read_user(w, TREC_PY_CODE_READ, (void *)(code + info->code_window)))
		return 0;
	for (int i = 0; i < TREC_PY_ID_INTS; i++) {
		__u32 off = info->code_ints[i];
		__u32 k = off >> 3;

		if (k >= TREC_PY_CODE_READ / 8)
			k = 0;
		ints[i] = (__u32)(w[k] >> ((off & 4) * 8));
	}
	for (int i = 0; i < TREC_PY_ID_PTRS; i++) {
		__u32 k = info->code_ptrs[i] >> 3;

		if (k >= TREC_PY_CODE_READ / 8)
			k = 0;
		ptrs[i] = w[k];
	}
	return trec_py_object_id(ints, ptrs);
}

static __always_inline __u32 trec_py_code_id(const struct trec_py_proc_info *info, __u64 code)
{
	__u64 w[TREC_PY_CODE_READ / 8];

	return trec_py_code_id_in(info, code, w);
}

/*
 * The program body (bpf/python_prog.h wraps it). Returns the unwinder to
 * tail-call next:
 * NATIVE when a run of interpreter frames is done (or Python failed),
 * PYTHON when the frame budget ran out mid-run, STOP when the trace is full.
 */
TREC_SUBPROG int trec_python_walk(struct trec_per_cpu_record *rec)
{
	const struct trec_py_proc_info *info;
	__u32 pid;
	__u64 frame;
	int err;

	if (!rec)
		return TREC_PROG_UNWIND_STOP;
	pid = rec->trace.pid;
	frame = rec->python_frame;
	info = bpf_map_lookup_elem(&py_procs, &pid);
	if (!info)
		return trec_py_fail(rec, TREC_ERR_PYTHON_NO_PROC_INFO);
	if (!frame) {
		err = trec_py_first_frame(info, &frame);
		if (err)
			return trec_py_fail(rec, err);
		if (!frame)
			return trec_py_done(rec);
	}

	for (int i = 0; i < TREC_PY_FRAMES_PER_PROGRAM; i++) {
		__u64 w[TREC_PY_FRAME_READ / 8];
		__u64 code, prev, instr, lasti;
		__u32 entry_off = info->frame_entry;
		__u8 entry;

		if (bpf_probe_read_user(w, sizeof(w), (void *)frame))
			return trec_py_fail(rec, TREC_ERR_PYTHON_BAD_FRAME);
		code = trec_py_word(w, info->frame_code);
		prev = trec_py_word(w, info->frame_previous);
		instr = trec_py_word(w, info->frame_instr);
		if (entry_off >= TREC_PY_FRAME_READ)
			entry_off = 0;
		entry = ((const __u8 *)w)[entry_off];

		if (info->entry_kind == TREC_PY_ENTRY_OWNER_CSTACK && entry == TREC_PY_OWNER_CSTACK) {
			/* The shim below a run: hand back to native. */
			rec->python_frame = prev;
			return prev ? TREC_PROG_UNWIND_NATIVE : trec_py_done(rec);
		}
		if (!code)
			return trec_py_fail(rec, TREC_ERR_PYTHON_BAD_CODE);

		/* Index of the code unit instr points at; a fresh frame's
		 * prev_instr is one before the first (-1). */
		lasti = (__u32)((__s64)(instr - code - info->code_adaptive) >> 1);
		/* A code object's id, read once per trace (a recursion runs
		 * one code object frame after frame); 0: unreadable, not kept. */
		if (code != rec->py_memo_code) {
			rec->py_memo_id = trec_py_code_id(info, code);
			rec->py_memo_code = rec->py_memo_id ? code : 0;
		}
		if (push_frame(rec, code, lasti << 32 | rec->py_memo_id,
			       TREC_FRAME_PYTHON, TREC_FRAME_F_PID_SPECIFIC))
			return TREC_PROG_UNWIND_STOP;
		increment_metric(TREC_METRIC_PYTHON_FRAMES);

		if (info->entry_kind == TREC_PY_ENTRY_IS_ENTRY && entry) {
			rec->python_frame = prev;
			return prev ? TREC_PROG_UNWIND_NATIVE : trec_py_done(rec);
		}
		if (!prev)
			return trec_py_done(rec);
		frame = prev;
	}
	rec->python_frame = frame;
	return TREC_PROG_UNWIND_PYTHON;
}

/*
 * 3.8-3.10 (TREC_PY_ENTRY_EVERY_FRAME): pushes the PyFrameObject run by the
 * _PyEval_EvalFrameDefault frame at the native cursor (the innermost frame
 * of the thread first, then each f_back in turn) and moves rec->python_frame
 * to its f_back. Returns NATIVE (the native unwinder goes on with that eval
 * loop frame; Python is marked done after the outermost frame) or STOP.
 * bpf/python_prog.h loops over this and native steps.
 */
TREC_SUBPROG int trec_py_old_step(struct trec_per_cpu_record *rec,
				   const struct trec_py_proc_info *info)
{
	__u64 frame, code, prev, lasti, *w;
	__u32 off, zero = 0;
	struct trec_py_scratch *s = bpf_map_lookup_elem(&py_scratch, &zero);
	int err;

	if (!rec || !info)
		return TREC_PROG_UNWIND_STOP;
	frame = rec->python_frame;
	off = info->frame_instr;
	if (!s)
		return trec_py_fail(rec, TREC_ERR_PYTHON_BAD_FRAME);
	w = s->frame;

	if (!frame) {
		err = trec_py_first_frame(info, &frame);
		if (err)
			return trec_py_fail(rec, err);
		if (!frame)
			return trec_py_done(rec);
	}
	if (bpf_probe_read_user(w, TREC_PY_OLD_FRAME_READ, (void *)frame))
		return trec_py_fail(rec, TREC_ERR_PYTHON_BAD_FRAME);
	code = trec_py_old_word(w, info->frame_code);
	prev = trec_py_old_word(w, info->frame_previous);
	/* int f_lasti, 4-aligned (checked by trecord); -1 before the first
	 * instruction, kept as 0xffffffff like the 3.11+ index. */
	lasti = (__u32)(trec_py_old_word(w, off & ~7u) >> ((off & 4) * 8));
	if (!code)
		return trec_py_fail(rec, TREC_ERR_PYTHON_BAD_CODE);
	if (push_frame(rec, code, lasti << 32 | trec_py_code_id_in(info, code, s->code),
		       TREC_FRAME_PYTHON, TREC_FRAME_F_PID_SPECIFIC))
		return TREC_PROG_UNWIND_STOP;
	increment_metric(TREC_METRIC_PYTHON_FRAMES);
	if (!prev)
		return trec_py_done(rec);
	rec->python_frame = prev;
	return TREC_PROG_UNWIND_NATIVE;
}

#endif /* TREC_PYTHON_UNWIND_H */
