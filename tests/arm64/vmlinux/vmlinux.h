/* SPDX-License-Identifier: MIT */
/*
 * A minimal CO-RE header for building bpf/trec.bpf.c with
 * -D__TARGET_ARCH_arm64 on a machine without an arm64 kernel's BTF (make
 * test-arm64): only the kernel types and fields the program touches, as
 * arm64 lays out the arch-specific ones (pt_regs, thread_struct,
 * mm_context_t). preserve_access_index makes every access a CO-RE
 * relocation, which libbpf resolves by field name against the running
 * kernel's BTF at load time, so offsets here need not match any kernel;
 * the names and types must. uapi types come from the arm64 uapi headers.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h> /* arm64: regs is struct user_pt_regs */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef int pid_t;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* arch/arm64/include/asm/ptrace.h: user_pt_regs' registers first. */
struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			u64 regs[31];
			u64 sp;
			u64 pc;
			u64 pstate;
		};
	};
};

struct thread_struct {
	struct {
		unsigned long tp_value; /* TPIDR_EL0 */
		unsigned long tp2_value;
	} uw;
};

typedef struct {
	void *vdso;
} mm_context_t;

struct mm_struct {
	mm_context_t context;
	unsigned long start_brk;
	unsigned long start_stack;
};

struct super_block {
	u32 s_dev;
};

struct inode {
	struct super_block *i_sb;
	unsigned long i_ino;
	s64 i_mtime_sec;
	u32 i_mtime_nsec;
};

struct file {
	struct inode *f_inode;
};

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	struct mm_struct *vm_mm;
	unsigned long vm_flags;
	unsigned long vm_pgoff;
	struct file *vm_file;
};

struct task_struct {
	struct thread_struct thread;
	unsigned int flags;
	struct mm_struct *mm;
	int exit_code;
	unsigned in_execve : 1;
	pid_t pid;
	pid_t tgid;
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	char comm[16];
	u64 parent_exec_id;
	u64 self_exec_id;
};

struct linux_binprm {
	const char *filename;
};

#pragma clang attribute pop

#endif /* __VMLINUX_H__ */
