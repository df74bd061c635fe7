/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the BPF programs and userspace (trecord, the offline
 * unwinder harness). Everything here is the contract between the kernel
 * side and the loader: map keys and values, the wire record in the ring
 * buffer, and the encoding of stack deltas.
 *
 * Only the __u8..__u64/__s32 types are used: BPF code includes vmlinux.h
 * first, userspace gets them from <linux/types.h> here.
 */
#ifndef TREC_TYPES_H
#define TREC_TYPES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "trec_errors.h"

/* ---- frames ------------------------------------------------------------ */

/* Frame kinds, numbered as in the OTel profiler's frametypes.h. */
enum trec_frame_kind {
	TREC_FRAME_UNKNOWN = 0, /* abort/error frames carry this kind */
	TREC_FRAME_PYTHON = 1,
	TREC_FRAME_PHP = 2,
	TREC_FRAME_NATIVE = 3,
	TREC_FRAME_KERNEL = 4,
	TREC_FRAME_RUBY = 6,
	TREC_FRAME_PERL = 7,
};

enum trec_frame_flags {
	TREC_FRAME_F_ERROR = 1,          /* addr_or_line holds an enum trec_error */
	TREC_FRAME_F_RETURN_ADDRESS = 2, /* symbolize addr - 1 */
	TREC_FRAME_F_PID_SPECIFIC = 4,   /* file_id is only meaningful in this pid */
	TREC_FRAME_F_ABSOLUTE = 8,       /* file_id == 0, addr is a raw runtime pc */
};

/*
 * One user frame.
 *  native: file_id = trec file id, addr_or_line = ELF virtual address
 *          (pc - bias), i.e. the address symbol tables use.
 *  python: file_id = code object address (PID_SPECIFIC),
 *          addr_or_line = (lasti << 32) | code object id hash.
 *  error:  kind UNKNOWN, flags ERROR, addr_or_line = enum trec_error.
 */
struct trec_frame {
	__u64 file_id;
	__u64 addr_or_line;
	__u8 kind;
	__u8 flags;
	__u8 pad[6];
};

/* Room for deep recursion; one slot is always kept for the abort frame. */
#define TREC_MAX_FRAMES 256
#define TREC_MAX_NON_ERROR_FRAMES (TREC_MAX_FRAMES - 1)
/* Depth of kernel stacks kept in the stack-id map (value = 8 * depth). */
#define TREC_KERNEL_STACK_DEPTH 64
/* perf record's -t: at most this many threads; -u: no user filter. */
#define TREC_MAX_FILTER_TIDS 16
#define TREC_NO_UID 0xffffffffu
#define TREC_COMM_LEN 16
/* Off-CPU threads blocked at once whose stacks are kept (-a on a busy host
 * can exceed it: the excess is counted in OFFCPU_PENDING_FULL). */
#define TREC_OFFCPU_MAX_PENDING 8192

/* ---- ring buffer messages ---------------------------------------------- */

/* Every message in the trace_events ring buffer starts with this type. */
enum trec_msg_type {
	TREC_MSG_TRACE = 1,
	TREC_MSG_PID_EVENT = 2,
	TREC_MSG_DEFERRED = 3, /* struct trec_deferred_msg (deferred_types.h) */
	/* A struct trec_trace with only its first delta_frames frames: the
	 * rest are those of the trace sent just before it from the same CPU
	 * (seq - 1), whose outer frames it replayed (bpf/trace_delta.h). */
	TREC_MSG_TRACE_DELTA = 4,
};

/* Every this many traces of a CPU one is sent whole, deltas or not: a base
 * trecord lost (it never should) costs at most these samples' callers. */
#define TREC_DELTA_WHOLE_EVERY 64

enum trec_trace_flags {
	TREC_TRACE_F_KERNEL_MODE = 1, /* the sample interrupted kernel code */
	TREC_TRACE_F_OFFCPU = 2,      /* off-CPU: the thread blocked at ktime_ns
				       * for offcpu_ns (bpf/offcpu_prog.h) */
};

/*
 * The per-sample record. frames[] must stay last: only the used part is sent.
 * The kernel stack is normally in kernel_stackmap under kernel_stack_id;
 * when the map could not take it (kernel_stack_id < 0 in kernel mode), it
 * is inline instead: leading frames of kind TREC_FRAME_KERNEL, leaf first,
 * before the user frames.
 */
struct trec_trace {
	__u32 msg_type; /* TREC_MSG_TRACE */
	__u32 pid;      /* tgid */
	__u32 tid;
	__u32 cpu;
	__u64 ktime_ns; /* bpf_ktime_get_ns(), CLOCK_MONOTONIC */
	__s32 kernel_stack_id; /* < 0: none (user mode) or bpf_get_stackid error */
	__u16 num_frames;
	__u16 flags; /* enum trec_trace_flags */
	char comm[TREC_COMM_LEN];
	/* off-CPU: time blocked; 0 for cpu-clock samples. While the trace is
	 * parked in offcpu_pending: the thread's CPU time at its switch-out
	 * (bpf/offcpu_prog.h). */
	__u64 offcpu_ns;
	/* Traces sent from this CPU's per-CPU record, numbered from 1 (0:
	 * not sent from it: off-CPU waits, deferred samples). */
	__u32 seq;
	/* TREC_MSG_TRACE_DELTA: frames in this message; frames delta_frames..
	 * num_frames - 1 are the previous trace's (seq - 1, same cpu). */
	__u16 delta_frames;
	__u16 pad;
	struct trec_frame frames[TREC_MAX_FRAMES];
};

#define TREC_TRACE_HEADER_SIZE ((unsigned long)&((struct trec_trace *)0)->frames)

enum trec_pid_event_type {
	TREC_PID_EV_FORK = 1,
	TREC_PID_EV_EXEC = 2,
	TREC_PID_EV_EXIT = 3,
	TREC_PID_EV_COMM = 4,
	TREC_PID_EV_MMAP = 5, /* new executable mapping (userspace-generated) */
};

#define TREC_PID_EV_FILENAME_LEN 128

struct trec_pid_event_msg {
	__u32 msg_type; /* TREC_MSG_PID_EVENT */
	__u32 type;     /* enum trec_pid_event_type */
	__u64 ktime_ns;
	__u32 pid;        /* tgid of the process the event is about */
	__u32 tid;
	__u32 parent_pid; /* fork: parent tgid */
	__s32 exit_code;  /* exit: task->exit_code */
	char comm[TREC_COMM_LEN];
	/* exec: the new image's path as given to execve (truncated), else "" */
	char filename[TREC_PID_EV_FILENAME_LEN];
};

/* ---- pid reports (pid_events, inhibit_events) --------------------------- */

/* Why BPF asked userspace to sync a pid: the pid_events value. */
enum trec_report_reason {
	TREC_REPORT_NEW_PID = 1,    /* no synced marker for this pid */
	TREC_REPORT_UNKNOWN_PC = 2, /* pc outside every known mapping (dlopen) */
};

/* inhibit_events key of the "pids to sync" wake-up on report_events. */
#define TREC_EVENT_PID_REPORT 0

/* ---- pid/page LPM trie ------------------------------------------------- */

/*
 * Key of pid_page_to_mapping_info. prefix_len counts bits over pid then
 * page, so it is 32 + (bits of the address prefix). Both are big-endian so
 * that the trie compares most significant bits first. A lookup uses
 * prefix_len = 96 and the full pc.
 * The key {96, pid, 0} is the per-pid "synced" marker. Its value names
 * the image the entries describe: {mm->start_stack, mm->start_brk} as
 * /proc/PID/stat gave them before the maps were read (a fork copy: the
 * parent's, which the child's mm starts with). BPF trusts the marker only
 * for a process whose mm still has them: an exec makes a new mm, and a
 * sync or fork copy that read the old image can land after the exec
 * (whose event, and own sync, are still on their way). {0, 0}: unchecked.
 */
struct trec_pid_page_key {
	__u32 prefix_len;
	__u32 pid_be;  /* __be32 */
	__u64 page_be; /* __be64 */
};

/* Unwinder programs in the prog array; also the LPM value's top byte. */
enum trec_unwinder {
	TREC_PROG_UNWIND_STOP = 0,
	TREC_PROG_UNWIND_NATIVE = 1,
	TREC_PROG_UNWIND_PYTHON = 2,
	TREC_PROG_UNWIND_PERL = 3,
	TREC_PROG_UNWIND_RUBY = 4,
	TREC_PROG_UNWIND_PHP = 5,
	TREC_PROG_COUNT,
	/* Not a program: the LPM selector of code trec_unwind_native walks by
	 * frame pointer instead of stack deltas (JIT code in anonymous
	 * memory, ELF files without CFI). No tail call at JIT <-> CFI
	 * transitions, which alternate frame by frame in V8 and HotSpot. */
	TREC_UNWIND_FRAME_POINTER = 16,
	/* Not a program: anonymous code with stack deltas of its own under a
	 * synthetic file id (CPython's perf trampolines); its frames are kept
	 * as raw pcs, like other JIT code, so perf maps name them. */
	TREC_UNWIND_ANON_DELTAS = 17,
	/* Not a program: Go code, unwound with its deltas (frame-pointer
	 * rules, roots, stack switches: record/unwind/go_roots.c); until they
	 * load, by frame pointer, where rbp 0 ends the stack cleanly. */
	TREC_UNWIND_GO = 18,
};

/* bias in the low 56 bits, enum trec_unwinder in the top 8. */
struct trec_pid_page_value {
	__u64 file_id;
	__u64 bias_and_unwinder;
};

/*
 * Executable file mappings by what the kernel knows of them, for pcs of a
 * process whose trie entries are not in yet (a fresh exec, a library ld.so
 * just mapped): the BPF side finds the pc's VMA and looks its file up here.
 * dev is the kernel's encoding (major << 20 | minor); all zero is the
 * vdso. vaddr_minus_offset: ELF vaddr - file offset in the mapped segment.
 */
struct trec_exec_file_key {
	__u64 dev;
	__u64 inode;
	__u64 mtime_ns; /* so a reused inode number is another file */
	__u64 offset;   /* the mapping's file offset (page aligned) */
};

struct trec_exec_file_value {
	__u64 file_id;
	__s64 vaddr_minus_offset;
	__u32 unwinder; /* the LPM selector its mappings get (0: native) */
	__u32 pad;
};

#define TREC_BIAS_MASK 0x00ffffffffffffffULL
#define TREC_UNWINDER_SHIFT 56

/* ---- stack deltas ------------------------------------------------------ */

/*
 * Stack deltas are stored per file, sorted by address, in one global
 * array map (stack_deltas); a file's deltas occupy a contiguous range
 * allocated by trecord. For every 64 KiB page of the file's text, a
 * stack_delta_pages entry says where that page's deltas start and how
 * many there are. addr_low is the address's offset inside its page.
 *
 * Lookup of ELF vaddr A in file F (A - 1 for non-leaf frames):
 *   page = A & ~0xffff; info = stack_delta_pages[{F, page}]
 *   binary search [first, first+count) for the last addr_low <= (A & 0xffff);
 *   if none (or count == 0) the governing delta is deltas[first - 1] (the
 *   last delta of an earlier page; trecord guarantees first >= 1 and that
 *   deltas[first-1] belongs to the same file or is an INVALID command).
 */
#define TREC_DELTA_PAGE_BITS 16
#define TREC_DELTA_PAGE_MASK ((1ULL << TREC_DELTA_PAGE_BITS) - 1)
#define TREC_MAX_DELTA_SEARCH_STEPS 16

struct trec_delta_page_key {
	__u64 file_id;
	__u64 page; /* vaddr & ~TREC_DELTA_PAGE_MASK */
};

struct trec_delta_page_value {
	__u32 first_delta; /* index into stack_deltas */
	__u32 num_deltas;  /* deltas whose address is in this page */
};

struct trec_stack_delta {
	__u16 addr_low;    /* vaddr & TREC_DELTA_PAGE_MASK */
	__u16 unwind_info; /* index into unwind_info_array, or a command */
};

/* stack_deltas holds two deltas per element: delta i is element i / 2,
 * half i % 2. Array elements take 8 bytes each, so one 4-byte delta per
 * element left half the map (and its mapping in trecord) unused. Element
 * i / 2 is at byte 8 * (i / 2), so the map's memory is the deltas'
 * array as it is. */
struct trec_stack_delta_pair {
	union {
		struct trec_stack_delta d[2];
		__u64 both; /* d[0] in the low half (little-endian) */
	};
};

/* unwind_info with bit 15 set is a command, not an index. */
#define TREC_UNWIND_COMMAND 0x8000
enum trec_unwind_command {
	TREC_CMD_INVALID = 0,       /* no rule: end with NATIVE_STACK_DELTA_INVALID */
	TREC_CMD_STOP = 1,          /* outermost frame (_start, clone, thread start) */
	TREC_CMD_PLT = 2,           /* PLT stub: cfa = sp + 8 + ((pc & 15) >= 11 ? 8 : 0) */
	TREC_CMD_SIGNAL = 3,        /* rt_sigreturn trampoline: registers from ucontext */
	TREC_CMD_FRAME_POINTER = 4, /* a frame-pointer step (bpf/fp_unwind.h) */
	TREC_CMD_UNSUPPORTED = 5,   /* a rule exists but BPF cannot run it */
	/* Go's stack switches (record/unwind/go_roots.c): */
	TREC_CMD_GO_SWITCH_ROOT = 6, /* return address: STOP; leaf: GO_SWITCH_FP */
	TREC_CMD_GO_SWITCH_FP = 7,   /* a FRAME_POINTER step that may change stacks */
	TREC_CMD_LAST = TREC_CMD_GO_SWITCH_FP,
};

/* CFA base registers. */
enum trec_unwind_reg {
	TREC_REG_INVALID = 0,
	TREC_REG_SP = 1,
	TREC_REG_FP = 2, /* rbp on x86-64, x29 on arm64 */
};

enum trec_unwind_flags {
	/* cfa = *(base + cfa_param) + 8 * (flags >> 4 & 7): SSE realign, OpenSSL */
	TREC_UNWIND_F_DEREF_CFA = 1,
};

enum trec_fp_rule {
	TREC_FP_SAME = 0,      /* caller's fp = this frame's fp (not saved) */
	TREC_FP_AT_CFA = 1,    /* caller's fp = *(cfa + fp_param) */
	TREC_FP_UNDEFINED = 2, /* caller's fp unknown; cleared */
};

/* Where the return address is. x86-64 rules all use 0 (the call pushed
 * it); arm64's bl leaves it in x30, which a prologue may save. */
enum trec_ra_rule {
	TREC_RA_CFA_MINUS_8 = 0, /* x86-64: *(cfa - 8) */
	TREC_RA_LR = 1,          /* arm64: still in x30 (leaf, prologue, PLT) */
	TREC_RA_AT_CFA = 2,      /* arm64: *(cfa + ra_param) */
};

/*
 * An interned unwind rule. The caller's sp is always cfa.
 */
struct trec_unwind_info {
	__u8 cfa_reg;  /* enum trec_unwind_reg */
	__u8 fp_rule;  /* enum trec_fp_rule */
	__u8 flags;    /* enum trec_unwind_flags (+ deref adder in bits 4..6) */
	__u8 ra_rule;  /* enum trec_ra_rule */
	__s32 cfa_param;
	__s32 fp_param;
	__s32 ra_param; /* TREC_RA_AT_CFA's offset; 0 otherwise */
};

#define TREC_MAX_UNWIND_INFOS 16384
#define TREC_MAX_STACK_DELTAS (1U << 22) /* 4M deltas, 16 MiB (2M pairs) */

/* Sets of the per-CPU cache of delta lookups (bpf/delta_rule_cache.h). */
#define TREC_DELTA_CACHE_SETS 1024
#define TREC_DELTA_CACHE_WAYS 2

/* (file id, lookup address) -> unwind_info; file_id 0: empty. */
struct trec_delta_cache_slot {
	__u64 file_id;
	__u64 addr_info; /* lookup address << 16 | unwind_info */
};

/* The keys of one index, the most recently found first. */
struct trec_delta_cache_set {
	struct trec_delta_cache_slot way[TREC_DELTA_CACHE_WAYS];
};
#define TREC_MAX_DELTA_PAGES 65536

/* Sets of the per-CPU cache of trie lookups (bpf/text_page_cache.h). */
#define TREC_TEXT_CACHE_SETS 256

/* (pid, page) -> the trie's value, while trec_maps_gen stays gen. */
struct trec_text_cache_slot {
	__u64 page; /* pc >> 12, + 1: 0 is empty */
	__u64 gen;
	__u64 file_id;
	__u64 bias_and_unwinder;
	__u32 pid;
	__u32 pad;
};

/* ---- interpreters ------------------------------------------------------ */

/* interpreter_offsets: file id -> where the interpreter loop lives. */
struct trec_offset_range {
	__u64 lower1, upper1; /* ELF vaddr range, e.g. _PyEval_EvalFrameDefault */
	__u64 lower2, upper2; /* its .cold part, or 0 */
	__u16 program_index;  /* enum trec_unwinder */
	__u16 pad[3];
};

#endif /* TREC_TYPES_H */
