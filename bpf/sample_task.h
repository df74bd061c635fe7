/* SPDX-License-Identifier: MIT */
/*
 * What a sample or an off-CPU wait takes from its task before any walk:
 * its comm, and whether the task is one of trecord's own threads (kept as
 * a SELF frame, not walked).
 *
 * Kernel-only (task BTF); included by bpf/trec.bpf.c after finish_trace()
 * (tracemgmt.h), before the sampler and offcpu_prog.h.
 */
#ifndef TREC_SAMPLE_TASK_H
#define TREC_SAMPLE_TASK_H

/*
 * A task's comm, straight from the task (a BTF pointer: two 8-byte loads)
 * rather than through bpf_get_current_comm(), whose call and byte copy
 * cost 85-180 ns a sample here (in-run split, deep16 and busy). The
 * kernel keeps comm NUL-padded; a rename racing with the read can tear
 * it, as it can the helper's copy, and trecord terminates it again.
 */
_Static_assert(sizeof(((struct trec_trace *)0)->comm) == 16, "comm is two u64");

static __always_inline void read_comm(char *dst, const struct task_struct *task)
{
	const __u64 *src = (const __u64 *)task->comm;

	((__u64 *)dst)[0] = src[0];
	((__u64 *)dst)[1] = src[1];
}

/*
 * trecord's own threads (-a, -u, -G): a sample or wait keeps its time and
 * one SELF frame, and is not walked. Walked, they cost a fifth of
 * trecord's CPU at -a -F 20000: each sample written made more samples of
 * trecord to walk and write. A trecord recording another (-p) walks it
 * as any process.
 */
TREC_RODATA(__u32, self_tgid, 0);

static __always_inline bool is_self(__u32 tgid)
{
	return self_tgid && tgid == self_tgid; /* 0: the idle task's */
}

static __always_inline int send_self(struct trec_per_cpu_record *rec)
{
	set_error(&rec->state, TREC_ERR_SELF, TREC_METRIC_SELF_SAMPLES);
	finish_trace(rec);
	return 0;
}

#endif /* TREC_SAMPLE_TASK_H */
