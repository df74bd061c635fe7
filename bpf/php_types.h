/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the BPF PHP unwinder (bpf/php_unwind.h) and trecord
 * (record/interp/php/php_detect.c): where a Zend engine keeps its call
 * frames, per process, so BPF walks them without knowing the version.
 *
 * Include after vmlinux.h (BPF) or <linux/types.h> (userspace).
 */
#ifndef TREC_PHP_TYPES_H
#define TREC_PHP_TYPES_H

/* PHP frames walked per program run before the program tail-calls itself:
 * a trace's worth (TREC_MAX_FRAMES), as the frames go through bpf_loop,
 * whose callback the verifier checks once. */
#define TREC_PHP_FRAMES_PER_PROGRAM 256

/* Bytes BPF reads per zend_execute_data, per zend_function from its
 * start (its type, name and scope: one read, not three) and per
 * zend_op_array from op_last (powers of two): every field used must fit,
 * trecord checks (php_detect.c). */
#define TREC_PHP_EXEC_READ 64
#define TREC_PHP_FN_READ 32
#define TREC_PHP_OP_READ 128

/* Zend constants (Zend/zend_compile.h, stable since PHP 7.0). */
#define TREC_PHP_CALL_TOP (1u << 17) /* frame entered from C: ends a run */
#define TREC_PHP_USER_FUNCTION 2
#define TREC_PHP_EVAL_CODE 4

/* The fields of the last zend_function a trace pushed (php_unwind.h): a
 * recursion names one function frame after frame. func 0: none. */
struct trec_php_fn_memo {
	__u64 func, name, scope, opcodes, filename;
	__u32 last, line_start, line_end;
	__u8 type, pad[3];
};

/* php_procs value: everything the BPF walker needs for one process.
 * Addresses are runtime addresses; offsets are in bytes. */
struct trec_php_proc_info {
	__u64 current_execute_data; /* &executor_globals.current_execute_data */
	__u16 version;              /* 0x0802 for 8.2 */
	/* zend_execute_data */
	__u16 ed_opline, ed_func, ed_call_info, ed_prev;
	/* zend_function (common part) and zend_op_array */
	__u16 fn_name, fn_scope;
	__u16 op_last, op_opcodes, op_filename, op_line_start, op_line_end;
	/* zend_op */
	__u16 op_size, op_lineno;
	__u16 pad;
};

/*
 * Object id of a zend_function: guards its address against reuse between
 * the sample and trecord's read. From the type, first and last line and
 * the addresses of the name, class, file name and opcodes (all 0 where a
 * function has none). Never 0: 0 means "BPF could not read it".
 * Spec: FORMAT.md §12.3. Always inlined: a BPF call takes at most 5
 * arguments.
 */
static inline __attribute__((always_inline)) __u32
trec_php_object_id(__u32 type, __u32 line_start, __u32 line_end, __u64 name, __u64 scope,
		   __u64 filename, __u64 opcodes)
{
	__u64 v[7] = { type, line_start, line_end, name, scope, filename, opcodes };
	__u64 h = 0;

	for (int i = 0; i < 7; i++) {
		h ^= v[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return (__u32)h ? (__u32)h : 1;
}

#endif /* TREC_PHP_TYPES_H */
