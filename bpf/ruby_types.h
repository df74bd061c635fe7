/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the BPF Ruby (MRI) unwinder (bpf/ruby_unwind.h) and
 * trecord (record/interp/ruby/ruby_detect.c): where the current thread's
 * execution context is and how its control frames are laid out.
 *
 * Include after vmlinux.h (BPF) or <linux/types.h> (userspace).
 */
#ifndef TREC_RUBY_TYPES_H
#define TREC_RUBY_TYPES_H

/* Bytes BPF reads per control frame, per execution context and per
 * instruction sequence body; every field used must fit, trecord checks. */
#define TREC_RB_CFP_READ 64
#define TREC_RB_EC_READ 32
#define TREC_RB_BODY_READ 96

/* Control frames walked per program run before the program tail-calls
 * itself to continue: a trace's worth, as the frames go through
 * bpf_loop, whose callback the verifier checks once. */
#define TREC_RB_FRAMES_PER_PROGRAM 256

/* ep[0] of a control frame holds its flags (VM_ENV_DATA_INDEX_FLAGS): a
 * frame magic and flags; FINISH marks the frame a C-level call of rb_vm_exec
 * ran first (its run of frames ends there). */
#define TREC_RB_FLAG_FINISH 0x20u
/* Set on frames that run no iseq (C methods, C blocks, the thread's
 * bottom frame): MRI's own VM_FRAME_RUBYFRAME_P() test. */
#define TREC_RB_FLAG_CFRAME 0x80u

/* Body words of the object id (offsets in rb_iseq_constant_body):
 * iseq_encoded, location.pathobj, location.label, location.first_lineno.
 * The first one also turns a frame's pc into an instruction position. */
#define TREC_RB_ID_WORDS 4

/* The last iseq a trace pushed, its body and the body words that name it
 * (ruby_unwind.h): a recursion runs one iseq frame after frame. iseq 0:
 * none. */
struct trec_rb_iseq_memo {
	__u64 iseq, body, id[TREC_RB_ID_WORDS];
};

/* ruby_procs value: everything the BPF walker needs for one process. All
 * addresses are runtime addresses in that process; offsets in bytes. */
struct trec_rb_proc_info {
	/* The execution context is the thread-local ruby_current_ec of
	 * libruby (general-dynamic TLS): its module id is in the GOT word at
	 * tls_module_addr (ld.so's DTPMOD64), and
	 *   ec = *(*(*(fsbase + tcb_dtv) + modid * dtv_entry) + tls_offset)
	 * (glibc x86-64: the TCB's dtv pointer, 16-byte dtv entries). */
	__u64 tls_module_addr;
	__u64 tls_offset;
	__u16 version;        /* 0x0301 for 3.1 */
	__u8 tcb_dtv;
	__u8 dtv_entry;

	/* rb_execution_context_t: vm_stack, vm_stack_size (words), cfp */
	__u8 ec_vm_stack, ec_vm_stack_size, ec_cfp;
	/* rb_control_frame_t: stride and fields */
	__u8 cfp_size, cfp_pc, cfp_iseq, cfp_ep;
	/* rb_iseq_t -> body */
	__u8 iseq_body;
	__u8 body_id[TREC_RB_ID_WORDS];
	__u8 pad[3];
};

/*
 * Object id of an instruction sequence: guards an iseq address against
 * reuse between the sample and trecord's read of it. w = the body's
 * address, then the TREC_RB_ID_WORDS body words. Never 0 (0 means "BPF
 * could not read the body"). Spec: FORMAT.md §12.2.
 */
static inline __u32 trec_rb_object_id(__u64 body, const __u64 *w)
{
	__u64 h = 0;

	h ^= body;
	h *= 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	for (int i = 0; i < TREC_RB_ID_WORDS; i++) {
		h ^= w[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return (__u32)h ? (__u32)h : 1;
}

#endif /* TREC_RUBY_TYPES_H */
