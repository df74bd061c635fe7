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
 * Include after vmlinux.h, bpf_helpers.h, trec_maps.h and python_maps.h.
 * The offline test shim (tests/unit/python_bpf_shim.h) defines
 * TREC_PY_FSBASE() and the helpers to compile this as userspace C.
 */
#ifndef TREC_PYTHON_UNWIND_H
#define TREC_PYTHON_UNWIND_H

#include "python_maps.h"

#ifndef TREC_PY_FSBASE
/* The sampled thread's user fs base: glibc's thread pointer. */
#define TREC_PY_FSBASE() (bpf_get_current_task_btf()->thread.fsbase)
#endif

static __always_inline void trec_py_metric(enum trec_metric id)
{
	__u32 key = id;
	__u64 *v = bpf_map_lookup_elem(&metrics, &key);

	if (v)
		*v += 1;
}

static __always_inline int trec_py_done(struct trec_per_cpu_record *rec)
{
	rec->unwinders_done |= 1u << TREC_PROG_UNWIND_PYTHON;
	rec->python_frame = 0;
	return TREC_PROG_UNWIND_NATIVE;
}

/* Appends a frame; on a full trace sets the abort error and returns -1. */
static __always_inline int trec_py_push(struct trec_per_cpu_record *rec, __u64 file_id,
					__u64 addr, __u8 kind, __u8 flags)
{
	__u32 n = rec->trace.num_frames;

	if (n >= TREC_MAX_NON_ERROR_FRAMES) {
		rec->state.unwind_error = TREC_ERR_STACK_LENGTH_EXCEEDED;
		rec->state.error_metric = TREC_METRIC_STACK_LENGTH_EXCEEDED;
		return -1;
	}
	rec->trace.frames[n].file_id = file_id;
	rec->trace.frames[n].addr_or_line = addr;
	rec->trace.frames[n].kind = kind;
	rec->trace.frames[n].flags = flags;
	rec->trace.num_frames = n + 1;
	return 0;
}

/*
 * A Python-level failure: an inline error frame, then the native unwinder
 * goes on without Python frames (they are marked done), so the rest of the
 * stack is still collected.
 */
static __always_inline int trec_py_fail(struct trec_per_cpu_record *rec, enum trec_error err)
{
	trec_py_metric(TREC_METRIC_PYTHON_ERRORS);
	if (trec_py_push(rec, 0, err, TREC_FRAME_UNKNOWN, TREC_FRAME_F_ERROR))
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

static __always_inline __u32 trec_py_int(const __u32 *w, __u8 off)
{
	__u32 i = off >> 2;

	if (i >= TREC_PY_CODE_INTS_READ / 4)
		i = 0;
	return w[i];
}

/* Object id of the code object at code, or 0 if it cannot be read. */
static __always_inline __u32 trec_py_code_id(const struct trec_py_proc_info *info, __u64 code)
{
	__u32 ints[TREC_PY_CODE_INTS_READ / 4];

	if (bpf_probe_read_user(ints, sizeof(ints), (void *)(code + info->code_ints)))
		return 0;
	return trec_py_object_id(trec_py_int(ints, info->code_argcount),
				 trec_py_int(ints, info->code_kwonlyargcount),
				 trec_py_int(ints, info->code_flags),
				 trec_py_int(ints, info->code_firstlineno));
}

/*
 * The program body (bpf/python_prog.h wraps it). Returns the unwinder to
 * tail-call next:
 * NATIVE when a run of interpreter frames is done (or Python failed),
 * PYTHON when the frame budget ran out mid-run, STOP when the trace is full.
 */
static __always_inline int trec_python_walk(struct trec_per_cpu_record *rec)
{
	const struct trec_py_proc_info *info;
	__u32 pid = rec->trace.pid;
	__u64 frame = rec->python_frame;
	int err;

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
		if (trec_py_push(rec, code, lasti << 32 | trec_py_code_id(info, code),
				 TREC_FRAME_PYTHON, TREC_FRAME_F_PID_SPECIFIC))
			return TREC_PROG_UNWIND_STOP;
		trec_py_metric(TREC_METRIC_PYTHON_FRAMES);

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

#endif /* TREC_PYTHON_UNWIND_H */
