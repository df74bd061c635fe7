/* SPDX-License-Identifier: MIT */
/*
 * The resumed walk of a deferred sample (bpf/deferred_types.h): the BPF
 * native unwinder's own C (bpf/trec.bpf.c's unwind_native_step, compiled
 * as userspace code as the offline harness does), reading the stack copy
 * instead of live memory and the real BPF maps through their fds.
 * Writer thread only: the walk keeps its state in statics.
 */
#ifndef TREC_DEFERRED_WALK_H
#define TREC_DEFERRED_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deferred_types.h"
#include "record/unwind/map_sinks.h"

struct trec_lookup_memo;

struct trec_deferred_walk_fds {
	struct trec_map_fds maps; /* the trie, delta maps, defer_files */
	int interp;               /* interpreter_offsets */
};

/* A deferred sample, as kept while it waits. */
struct trec_deferred_sample {
	uint32_t mappings_pid;
	uint32_t flags; /* TREC_DEFER_F_* */
	uint32_t stack_len;
	uint64_t stack_base;
	struct trec_unwind_state state;
	const uint8_t *stack;          /* stack_len bytes from stack_base */
	const struct trec_trace *trace; /* header + trace->num_frames frames */
};

enum trec_deferred_walk_result {
	TREC_DWALK_DONE = 0, /* *out holds the finished trace */
	TREC_DWALK_WAIT = 1, /* a file on the way is still loading */
	TREC_DWALK_UNSYNCED = 2, /* TREC_DEFER_F_NO_PID: the pid has no marker yet */
};

/*
 * Resumes s's walk into out (which must hold a whole struct trec_trace;
 * *out_len gets the bytes used). final: do not wait for loading files
 * (their pcs get the frame-pointer fallback, as in BPF). memo (or NULL):
 * the pass's successful lookups, reused and added to (lookup_memo.h).
 * On TREC_DWALK_WAIT, *wait_file (if not NULL) gets the loading file.
 */
enum trec_deferred_walk_result trec_deferred_walk(const struct trec_deferred_walk_fds *fds,
						  struct trec_lookup_memo *memo,
						  const struct trec_deferred_sample *s, bool final,
						  struct trec_trace *out, size_t *out_len,
						  uint64_t *wait_file);

/* Whether file_id's deltas are still loading (defer_files, asked afresh). */
bool trec_deferred_file_loading(const struct trec_deferred_walk_fds *fds, uint64_t file_id);

/* s as BPF would have sent it had it not deferred it: its leaf pc as a
 * raw frame, then err (NO_PID_INFO) after the frames it has. */
void trec_deferred_leaf_only(const struct trec_deferred_sample *s, uint32_t err,
			     struct trec_trace *out, size_t *out_len);

#endif /* TREC_DEFERRED_WALK_H */
