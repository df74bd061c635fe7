/* SPDX-License-Identifier: MIT */
/*
 * The offline unwinder harness: runs the real BPF unwinder (bpf/trec.bpf.c
 * compiled as userspace C through bpf/testing_shim.h) on a captured thread
 * state, against maps filled by the real delta store.
 */
#ifndef TREC_HARNESS_H
#define TREC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trec_types.h"
#include "python_types.h"
#include "php_types.h"
#include "perl_types.h"
#include "ruby_types.h"

struct fake_sink;

/* A captured memory range (the thread's stack, or a core dump segment). */
struct harness_mem {
	uint64_t start;
	size_t len;
	uint8_t *bytes;
};

/* One pid_page_to_mapping_info entry, as written through the map API. */
struct harness_lpm_entry {
	struct trec_pid_page_key k;
	struct trec_pid_page_value v;
};

/* interpreter_offsets and py_procs entries (few: one interpreter). */
#define HARNESS_MAX_PY 4

struct harness_py_range {
	uint64_t file_id;
	struct trec_offset_range r;
};

struct harness_py_proc {
	uint32_t pid;
	struct trec_py_proc_info info;
};

struct harness_php_proc {
	uint32_t pid;
	struct trec_php_proc_info info;
};

struct harness_rb_proc {
	uint32_t pid;
	struct trec_rb_proc_info info;
};

struct harness_env {
	/* Inputs: the maps (filled by the delta store and harness_lpm_*). */
	struct fake_sink *sink;
	struct harness_lpm_entry *lpm;
	size_t num_lpm, cap_lpm;
	struct harness_py_range py_ranges[HARNESS_MAX_PY];
	struct harness_py_proc py_procs[HARNESS_MAX_PY];
	size_t num_py_ranges, num_py_procs; /* py_ranges: every interpreter_offsets entry */
	struct harness_php_proc php_procs[1];
	size_t num_php_procs;
	/* perl_procs (interpreter_offsets: py_ranges, shared). */
	struct trec_perl_proc_info perl_info;
	uint32_t perl_pid;
	bool have_perl;
	struct harness_rb_proc rb_procs[HARNESS_MAX_PY];
	size_t num_rb_procs;
	const struct harness_mem *mem;
	size_t num_mem;
	/* Outputs. */
	struct trec_trace trace; /* the last trace the program sent, made whole */
	int traces_sent;
	int delta_result; /* enum trec_delta_result of that trace */
	uint64_t metrics[TREC_METRIC_COUNT];
	unsigned tail_calls;
	unsigned memory_faults; /* bpf_probe_read_user outside mem */
};

/* x86-64 names; an arm64 case's pc, sp, x29 are rip, rsp, rbp here and
 * its x30 is lr (the harness built with -D__TARGET_ARCH_arm64 reads it). */
struct harness_regs {
	uint64_t rip, rsp, rbp, rax, r9, r11, r15;
	uint64_t fs_base; /* the thread pointer: the Python unwinder's TSD */
	uint64_t lr;
};

/* Empties what the program keeps across samples (delta_rule_cache), as a
 * new recording starts: before each case's maps are filled. */
void harness_forget_caches(void);

/* Drops the stack replay's log (bpf/stack_replay.h) and trecord's delta
 * bases (record/io/trace_delta.h): the next sample walks its whole stack
 * and is sent whole. */
void harness_forget_replay(void);

/* Trace deltas (bpf/trace_delta.h): the next send fails as on a full ring
 * buffer; the next message sent is lost before trecord sees it; the base
 * trecord keeps for the next delta (the harness's one CPU), or NULL. */
void harness_ring_full_next(void);
void harness_lose_next(void);
struct trec_trace *harness_delta_base(void);

/* Addresses of stack words the last replayable walk read past its first
 * frame whose change a replay must see (the first, the last, the middle,
 * and each that leaves its predecessor's page): at most max, 0 if there
 * is no such walk. */
size_t harness_replay_words(uint64_t *addrs, size_t max);
/* The end of the highest word in the replayable log, or 0 if there is none. */
uint64_t harness_replay_top(void);

/* The trie pages the last replayable walk resolved (pcs in them, in log
 * order, up to max) and its pid; early[i]: a page of its first frames,
 * which a replay walks again. 0 if there is no such walk. */
size_t harness_replay_pages(uint32_t *pid, uint64_t *pcs, bool *early, size_t max);
/* At least TREC_REPLAY_PAGES (checked where both are known). */
#define HARNESS_REPLAY_PAGES 16
/* What trecord does after changing the trie or interpreter_offsets
 * (trec_maps_gen, bpf/stack_replay_log.h). */
void harness_maps_changed(void);

/* Runs the program for one sample of (pid, tid) with these registers.
 * 0 if a trace was sent (into e->trace), -1 if not. */
int harness_unwind(struct harness_env *e, const struct harness_regs *r, uint32_t pid,
		   uint32_t tid);

/* Reads the captured memory like bpf_probe_read_user (across adjacent
 * ranges): 0, or -EFAULT if any byte was not captured. */
int harness_read(const struct harness_env *e, uint64_t addr, void *buf, size_t len);

/* The BPF get_stack_delta() for a leaf pc at ELF vaddr in file_id: 0 and
 * *info, or the enum trec_error it failed with. */
int harness_stack_delta(struct harness_env *e, uint64_t file_id, uint64_t vaddr, uint16_t *info);

/* The emulated pid_page_to_mapping_info (harness_lpm.c). */
int harness_lpm_update(struct harness_env *e, const struct trec_pid_page_key *k,
		       const struct trec_pid_page_value *v);
int harness_lpm_delete(struct harness_env *e, const struct trec_pid_page_key *k);
/* Entries for [start, end) of pid, split as trecord splits it. */
int harness_lpm_add_range(struct harness_env *e, uint32_t pid, uint64_t start, uint64_t end,
			  uint64_t file_id, uint64_t bias, uint8_t unwinder);
/* Longest-prefix match: tries prefix lengths 96 down to 32. */
struct trec_pid_page_value *harness_lpm_lookup(struct harness_env *e,
					       const struct trec_pid_page_key *k);

#endif /* TREC_HARNESS_H */
