/* SPDX-License-Identifier: MIT */
/*
 * The Ruby (MRI) unwinder: walks the sampled thread's control frames and
 * pushes one TREC_FRAME_RUBY frame per frame that runs an instruction
 * sequence (methods, blocks, class bodies, the main script).
 *
 * The native unwinder hands over when a native frame's pc lies inside
 * rb_vm_exec (interpreter_offsets). One C-level call of rb_vm_exec runs a
 * contiguous run of control frames, the outermost of which carries the
 * FINISH flag. We push that run and give control back to the native
 * unwinder, which pushes the rb_vm_exec frame itself and goes on; the next
 * rb_vm_exec frame resumes the walk at rec->ruby_cfp. So native and Ruby
 * frames interleave in their true order. C methods (Array#sort) have a
 * control frame but no iseq: their native frames name them.
 *
 * Included by bpf/ruby_prog.h, after python_unwind.h (TREC_PY_FSBASE()).
 */
#ifndef TREC_RUBY_UNWIND_H
#define TREC_RUBY_UNWIND_H

#include "ruby_maps.h"
#include "tracemgmt.h"

static __always_inline int trec_rb_done(struct trec_per_cpu_record *rec)
{
	unwinder_mark_done(rec, TREC_PROG_UNWIND_RUBY);
	rec->ruby_cfp = 0;
	return TREC_PROG_UNWIND_NATIVE;
}

/* A Ruby-level failure: an inline error frame, then the native unwinder
 * goes on without Ruby frames, so the rest of the stack is still kept. */
static __always_inline int trec_rb_fail(struct trec_per_cpu_record *rec, enum trec_error err)
{
	increment_metric(TREC_METRIC_RUBY_ERRORS);
	if (push_frame(rec, 0, err, TREC_FRAME_UNKNOWN, TREC_FRAME_F_ERROR))
		return TREC_PROG_UNWIND_STOP;
	return trec_rb_done(rec);
}

/* A byte offset into a window of n bytes read as words; offsets are
 * 8-aligned (checked by trecord), the clamp keeps the verifier's bounds. */
static __always_inline __u64 trec_rb_word(const __u64 *w, __u32 off, __u32 n)
{
	__u64 i = off >> 3;

	/* Else the compiler bounds off, not i, and the verifier loses it. */
	TREC_BARRIER_VAR(i);
	if (i >= n / 8)
		i = 0;
	return w[i];
}

/* The thread's execution context (ruby_current_ec), then the control
 * frame cursor and the end of its VM stack. Returns an error code. */
static __always_inline int trec_rb_first_frame(struct trec_per_cpu_record *rec,
					       const struct trec_rb_proc_info *info)
{
	__u64 modid, dtv, block, ec, w[TREC_RB_EC_READ / 8], size;

	if (bpf_probe_read_user(&modid, sizeof(modid), (void *)info->tls_module_addr) || !modid ||
	    modid > 4096)
		return TREC_ERR_RUBY_BAD_EC;
	if (bpf_probe_read_user(&dtv, sizeof(dtv), (void *)(TREC_PY_FSBASE() + info->tcb_dtv)) ||
	    !dtv)
		return TREC_ERR_RUBY_BAD_EC;
	if (bpf_probe_read_user(&block, sizeof(block), (void *)(dtv + modid * info->dtv_entry)) ||
	    !block || block == ~0ULL)
		return TREC_ERR_RUBY_BAD_EC;
	if (bpf_probe_read_user(&ec, sizeof(ec), (void *)(block + info->tls_offset)) || !ec)
		return TREC_ERR_RUBY_BAD_EC;
	if (bpf_probe_read_user(w, sizeof(w), (void *)ec))
		return TREC_ERR_RUBY_BAD_EC;
	size = trec_rb_word(w, info->ec_vm_stack_size, TREC_RB_EC_READ);
	if (size > (1ULL << 32))
		return TREC_ERR_RUBY_BAD_EC;
	rec->ruby_end = trec_rb_word(w, info->ec_vm_stack, TREC_RB_EC_READ) + size * 8;
	rec->ruby_cfp = trec_rb_word(w, info->ec_cfp, TREC_RB_EC_READ);
	return TREC_ERR_OK;
}

/* Pushes the frame of a control frame that runs iseq at pc. A subprogram
 * (TREC_SUBPROG): verified once, not once per frame of trec_ruby_walk's
 * loop. */
TREC_SUBPROG int trec_rb_push(struct trec_per_cpu_record *rec, const struct trec_rb_proc_info *info,
			      __u64 iseq, __u64 pc)
{
	__u64 body, w[TREC_RB_BODY_READ / 8];
	__u64 pos = 0xffffffffULL;
	struct trec_rb_iseq_memo *m;

	if (!rec || !info)
		return TREC_PROG_UNWIND_STOP;
	m = &rec->rb_iseq;
	/* Read once per trace (a recursion runs one iseq frame after frame);
	 * the memo names iseq only once its body words are read. */
	if (m->iseq != iseq) {
		m->iseq = 0;
		if (bpf_probe_read_user(&body, sizeof(body), (void *)(iseq + info->iseq_body)) ||
		    !body || bpf_probe_read_user(w, sizeof(w), (void *)body))
			return trec_rb_fail(rec, TREC_ERR_RUBY_BAD_ISEQ);
		m->body = body;
		for (int i = 0; i < TREC_RB_ID_WORDS; i++)
			m->id[i] = trec_rb_word(w, info->body_id[i], TREC_RB_BODY_READ);
		m->iseq = iseq;
	}
	/* The word index pc is at (the next instruction); none yet: ~0. */
	if (pc >= m->id[0] && pc - m->id[0] < (1ULL << 34))
		pos = (pc - m->id[0]) >> 3;
	if (push_frame(rec, iseq, pos << 32 | trec_rb_object_id(m->body, m->id), TREC_FRAME_RUBY,
		       TREC_FRAME_F_PID_SPECIFIC))
		return TREC_PROG_UNWIND_STOP;
	increment_metric(TREC_METRIC_RUBY_FRAMES);
	return TREC_PROG_UNWIND_RUBY;
}

/* bpf_loop's callback: the control frame at rec->ruby_cfp. 1 ends the
 * loop, its result in rec->loop_next. */
static long ruby_loop_step(__u64 i, void *arg)
{
	struct interp_loop *l = arg;
	struct trec_per_cpu_record *rec = l->rec;
	const struct trec_rb_proc_info *info = l->info;
	__u64 w[TREC_RB_CFP_READ / 8];
	__u64 cfp = rec->ruby_cfp, iseq, ep, pc, flags = 0;
	int err;

	if (!cfp || cfp + info->cfp_size > rec->ruby_end) {
		rec->loop_next = trec_rb_done(rec);
		return 1;
	}
	if (bpf_probe_read_user(w, sizeof(w), (void *)cfp)) {
		rec->loop_next = trec_rb_fail(rec, TREC_ERR_RUBY_BAD_FRAME);
		return 1;
	}
	iseq = trec_rb_word(w, info->cfp_iseq, TREC_RB_CFP_READ);
	ep = trec_rb_word(w, info->cfp_ep, TREC_RB_CFP_READ);
	if (bpf_probe_read_user(&flags, sizeof(flags), (void *)ep)) {
		rec->loop_next = trec_rb_fail(rec, TREC_ERR_RUBY_BAD_FRAME);
		return 1;
	}
	pc = trec_rb_word(w, info->cfp_pc, TREC_RB_CFP_READ);
	/* As MRI's backtraces: a Ruby frame that has a pc. */
	if (iseq && pc && !(flags & TREC_RB_FLAG_CFRAME)) {
		err = trec_rb_push(rec, info, iseq, pc);
		if (err != TREC_PROG_UNWIND_RUBY) {
			rec->loop_next = err;
			return 1;
		}
	}
	cfp += info->cfp_size;
	rec->ruby_cfp = cfp;
	if (flags & TREC_RB_FLAG_FINISH) {
		/* The first frame of this rb_vm_exec: hand back. */
		rec->loop_next = cfp + info->cfp_size <= rec->ruby_end ? TREC_PROG_UNWIND_NATIVE
									: trec_rb_done(rec);
		return 1;
	}
	return 0;
}

/*
 * The program body (bpf/ruby_prog.h wraps it). Returns the unwinder to
 * tail-call next: NATIVE when a run of control frames is done (or Ruby
 * failed), RUBY when the frame budget ran out mid-run, STOP when the
 * trace is full. The frames go through bpf_loop (ruby_loop_step): the
 * verifier checks one (16 unrolled took 5.5k instructions).
 */
static __always_inline int trec_ruby_walk(struct trec_per_cpu_record *rec)
{
	const struct trec_rb_proc_info *info;
	__u32 pid = rec->trace.pid;
	int err;

	info = bpf_map_lookup_elem(&ruby_procs, &pid);
	if (!info)
		return trec_rb_fail(rec, TREC_ERR_RUBY_NO_PROC_INFO);
	if (!rec->ruby_cfp) {
		err = trec_rb_first_frame(rec, info);
		if (err)
			return trec_rb_fail(rec, err);
	}
	rec->loop_next = TREC_PROG_UNWIND_RUBY;
	bpf_loop(TREC_RB_FRAMES_PER_PROGRAM, ruby_loop_step,
		 &(struct interp_loop){ .rec = rec, .info = info }, 0);
	return rec->loop_next;
}

#endif /* TREC_RUBY_UNWIND_H */
