/* SPDX-License-Identifier: MIT */
/*
 * CPython detection: from the ELF file of a mapping (the python3 binary
 * with a static libpython, or libpython3.X.so) to the offsets the BPF
 * Python unwinder and the code-object reader need.
 *
 * What comes from the file itself: the version (Py_Version), _PyRuntime,
 * the range of _PyEval_EvalFrameDefault and its .cold part, and every
 * PyCodeObject field (PyCode_Type's tp_members table and tp_basicsize).
 * What comes from a per-minor-version table: the thread-state and frame
 * layout, the autoTSSkey's place in _PyRuntime, and string object layout.
 */
#ifndef TREC_PYTHON_DETECT_H
#define TREC_PYTHON_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include "trec_types.h"
#include "python_types.h"
#include "record/interp/python/python_tsd.h"

struct trec_py_offsets {
	uint32_t version_hex; /* Py_Version, e.g. 0x030b07f0 */
	unsigned major, minor, micro;

	/* ELF virtual addresses in the detected file. */
	uint64_t tss_vaddr;              /* _PyRuntime's autoTSSkey (Py_tss_t) */
	uint64_t eval_start, eval_end;   /* _PyEval_EvalFrameDefault */
	uint64_t cold_start, cold_end;   /* its .cold part; 0, 0 if none found */
	int cold_from_symbol;            /* 1: .symtab; 0: found from jumps */

	/* PyThreadState, _PyCFrame, _PyInterpreterFrame (version table);
	 * tstate_cframe is 0xffff when the thread state points at the frame
	 * directly (tstate_frame). */
	uint16_t tstate_cframe, cframe_current_frame, tstate_frame;
	uint16_t frame_code, frame_previous, frame_instr, frame_entry;
	uint8_t entry_kind; /* enum trec_py_entry_kind */

	/* Type objects, to check what an address points at. */
	uint64_t code_type_vaddr, str_type_vaddr, bytes_type_vaddr;

	/* PyCodeObject (from PyCode_Type in the file) */
	uint16_t code_argcount, code_kwonlyargcount, code_flags, code_firstlineno;
	uint16_t code_filename, code_name, code_qualname, code_linetable;
	uint16_t code_adaptive; /* first code unit: PyCode_Type.tp_basicsize */

	/* str and bytes objects (version table) */
	uint16_t str_length, str_state, str_ascii_data, str_compact_data;
	uint16_t bytes_size, bytes_data;

	/* The -X perf trampoline template (3.12+; tramp_len 0 if none or
	 * longer than we take), python_tramp.h. */
	uint8_t tramp_len;
	uint8_t tramp[32];
};

/*
 * Detects CPython in the ELF file at path. Returns 0, -ENOENT when the file
 * is not a CPython interpreter, -ENOTSUP for an unsupported version, or
 * another negative errno. err (may be NULL) gets a one-line reason.
 */
int trec_py_detect(const char *path, struct trec_py_offsets *o, char *err, size_t errlen);

/* The py_procs value for a process that maps the detected file with the
 * given bias (runtime address - ELF vaddr) and uses the given libc TSD. */
void trec_py_proc_info_init(const struct trec_py_offsets *o, uint64_t bias,
			    const struct trec_tsd_info *tsd, struct trec_py_proc_info *out);

/* The interpreter_offsets value for the detected file (ELF vaddrs). */
void trec_py_offset_range(const struct trec_py_offsets *o, struct trec_offset_range *out);

/* A process running CPython, found from /proc/PID/maps. */
struct trec_py_process {
	char path[4096];              /* the mapped file, as in /proc/PID/maps */
	uint64_t bias;
	struct trec_py_offsets offsets;
	struct trec_tsd_info tsd;
	struct trec_py_proc_info info; /* ready for py_procs */
};

/* 0 with *out filled, -ENOENT if the process maps no supported CPython,
 * other negative errno on failure (message in err). */
int trec_py_probe_pid(int pid, struct trec_py_process *out, char *err, size_t errlen);

#endif /* TREC_PYTHON_DETECT_H */
