/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the BPF Python unwinder (bpf/python_unwind.h) and
 * trecord (record/interp/python/python_detect.c): the per-process offsets that let BPF
 * walk a CPython thread's interpreter frames without knowing the version.
 *
 * Include after vmlinux.h (BPF) or <linux/types.h> (userspace).
 */
#ifndef TREC_PYTHON_TYPES_H
#define TREC_PYTHON_TYPES_H

/* Bytes BPF reads per _PyInterpreterFrame, per PyFrameObject (before
 * 3.11: f_lasti is at 104), and per PyCodeObject for its object id (its
 * fields span 16..128 before 3.11); every field used must fit, trecord
 * checks. */
#define TREC_PY_FRAME_READ 80
#define TREC_PY_OLD_FRAME_READ 112
#define TREC_PY_CODE_READ 112

/* Python frames walked per step of the program's loop (bpf/python_prog.h):
 * each step looks py_procs up once; the verifier checks a step once, but
 * its instructions grow with this. */
#define TREC_PY_FRAMES_PER_PROGRAM 4

/* Before 3.11 each Python frame has its own C-level eval loop call: the
 * program's loop (bpf/python_prog.h) pushes one Python frame per step and
 * walks the native frames up to the next eval loop frame in the steps
 * after it, all in one program run. */
/* (kernel 6.18 verifies the whole program in 62k of its 1M instructions) */

/* How the frame that ends a run of interpreter frames (one C-level call of
 * _PyEval_EvalFrameDefault) is recognised. */
enum trec_py_entry_kind {
	/* 3.11: the frame's bool is_entry is set; the frame itself is a real
	 * Python frame and is pushed. */
	TREC_PY_ENTRY_IS_ENTRY = 1,
	/* 3.12+: a shim frame with owner == FRAME_OWNED_BY_CSTACK follows the
	 * run; it has no Python code of its own and is not pushed. */
	TREC_PY_ENTRY_OWNER_CSTACK = 2,
	/* 3.8-3.10: a PyFrameObject chain; every frame is run by a C-level
	 * call of its own, so every frame is a run of one. frame_instr is
	 * the int f_lasti (bytes in 3.8/3.9, code units in 3.10). */
	TREC_PY_ENTRY_EVERY_FRAME = 3,
};

#define TREC_PY_OWNER_CSTACK 3

/* What the object id of a code object is computed from. */
#define TREC_PY_ID_INTS 4
#define TREC_PY_ID_PTRS 4 /* FRAME_OWNED_BY_CSTACK in 3.12 and 3.13 */

/*
 * The thread-specific-data slot of a pthread key, as libc lays it out:
 *   direct:   &value = fsbase + offset + key * multiplier
 *   indirect: &value = *(fsbase + offset) + key * multiplier   (musl)
 * glibc keeps keys < TREC_PY_TSD_DIRECT_KEYS in the thread descriptor.
 */
#define TREC_PY_TSD_DIRECT_KEYS 32

/* py_procs value: everything the BPF walker needs for one process. All
 * addresses are runtime addresses in that process; offsets are in bytes. */
struct trec_py_proc_info {
	__u64 tss_addr;       /* Py_tss_t of the autoTSSkey: int initialized, u32 key */
	__u16 version;        /* 0x030b for 3.11 */
	__u8 tsd_indirect;
	__u8 tsd_multiplier;
	__s32 tsd_offset;

	/* PyThreadState -> innermost _PyInterpreterFrame:
	 * frame = *(*(tstate + tstate_cframe) + cframe_current_frame), or
	 * frame = *(tstate + tstate_frame) when tstate_cframe is 0xffff. */
	__u16 tstate_cframe;
	__u16 cframe_current_frame;
	__u16 tstate_frame;

	/* _PyInterpreterFrame */
	__u16 frame_code;     /* f_code (3.11, 3.12) / f_executable (3.13) */
	__u16 frame_previous; /* previous / f_back (<3.11) */
	__u16 frame_instr;    /* prev_instr (3.11, 3.12) / instr_ptr (3.13) / f_lasti (<3.11) */
	__u16 frame_entry;    /* is_entry or owner, one byte */
	__u8 entry_kind;      /* enum trec_py_entry_kind */
	__u8 pad;

	/* PyCodeObject: the fields of the object id, as offsets into the
	 * TREC_PY_CODE_READ bytes read at code + code_window, and the first
	 * code unit. */
	__u16 code_window;
	__u16 code_adaptive;  /* offsetof(PyCodeObject, co_code_adaptive) */
	__u8 code_ints[TREC_PY_ID_INTS]; /* argcount, kwonlyargcount, flags, firstlineno */
	__u8 code_ptrs[TREC_PY_ID_PTRS]; /* filename, name, qualname, linetable */
};

/*
 * Object id of a code object: guards a code object address against reuse
 * between the sample and trecord's read of the object. The ints alone are
 * equal for every module's code (0, 0, 0, 1), hence the addresses of its
 * name, file name and line table objects. Never 0, because 0 means "BPF
 * could not read the code object". Spec: FORMAT.md, PYCODE.
 */
static inline __u32 trec_py_object_id(const __u32 *ints, const __u64 *ptrs)
{
	__u64 h = 0;

	for (int i = 0; i < TREC_PY_ID_INTS; i++) {
		h ^= ints[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (int i = 0; i < TREC_PY_ID_PTRS; i++) {
		h ^= ptrs[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return (__u32)h ? (__u32)h : 1;
}

#endif /* TREC_PYTHON_TYPES_H */
