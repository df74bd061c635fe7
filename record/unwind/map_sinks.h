/* SPDX-License-Identifier: MIT */
/* The real destinations of pid sync and the delta store: BPF map fds. */
#ifndef TREC_MAP_SINKS_H
#define TREC_MAP_SINKS_H

#include "trec_types.h"
#include "record/unwind/delta_mem.h"
#include "record/unwind/unwind_tables.h"

/* The mapped array's element stride: one trec_stack_delta_pair (the
 * kernel rounds values up to 8, which a pair fills). */
#define TREC_DELTA_MMAP_STRIDE 8
/* The array's values: two deltas per element. */
#define TREC_DELTAS_MAP_BYTES ((size_t)TREC_MAX_STACK_DELTAS / 2 * TREC_DELTA_MMAP_STRIDE)

struct trec_map_fds {
	int lpm;       /* pid_page_to_mapping_info */
	int reported;  /* reported_pids */
	int pages;     /* stack_delta_pages */
	int deltas;    /* stack_deltas */
	int infos;     /* unwind_info_array */
	int defer_files; /* files whose deltas are on the way (bpf/deferred.h) */
	/* stack_deltas in memory (BPF_F_MMAPABLE, chunks mapped on first
	 * write), or NULL: deltas go through batch updates */
	struct trec_delta_mem *deltas_mem;
	/* trec_maps_gen in the BPF object's .bss, or NULL (no BPF) */
	volatile __u64 *maps_gen;
};

/* After a change of the trie or of interpreter_offsets: a stack replay
 * (bpf/stack_replay.h) then asks them again instead of trusting its log. */
static inline void trec_maps_changed(volatile __u64 *maps_gen)
{
	if (maps_gen)
		__atomic_add_fetch(maps_gen, 1, __ATOMIC_SEQ_CST);
}

/* ctx: struct trec_map_fds * */
extern const struct trec_delta_sink_ops trec_bpf_delta_sink;

int trec_bpf_lpm_update(const struct trec_map_fds *fds, const struct trec_pid_page_key *k,
			const struct trec_pid_page_value *v);
int trec_bpf_lpm_delete(const struct trec_map_fds *fds, const struct trec_pid_page_key *k);
void trec_bpf_report_reset(const struct trec_map_fds *fds, uint32_t pid);

#endif /* TREC_MAP_SINKS_H */
