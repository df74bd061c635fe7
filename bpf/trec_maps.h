/* SPDX-License-Identifier: MIT */
/*
 * BPF map definitions, in one header so that the programs, the native
 * unwinder and the offline harness's shim all see the same maps.
 * Included by bpf/trec.bpf.c after vmlinux.h and bpf_helpers.h.
 * Map names are the contract with trecord (through the skeleton).
 */
#ifndef TREC_MAPS_H
#define TREC_MAPS_H

#include "trec_types.h"
#include "unwind_state.h"
#include "perl_types.h"
#include "php_types.h"
#include "ruby_types.h"

/* The per-CPU scratch record: the trace being built and the cursor. */
struct trec_per_cpu_record {
	struct trec_trace trace;
	struct trec_unwind_state state;
	__u32 tail_calls;     /* tail calls made for this trace */
	__u32 unwinders_done; /* bit per enum trec_unwinder */
	__u64 python_frame;   /* python: next frame to walk (pythonUnwindState) */
	/* python 3.11+: the last code object pushed and its id, for this
	 * trace (trace_reset clears it). */
	__u64 py_memo_code;
	__u32 py_memo_id, py_memo_pad;
	__u64 php_frame;      /* php: next zend_execute_data to walk (phpUnwindState) */
	struct trec_php_fn_memo php_fn; /* php: for this trace (trace_reset clears it) */
	struct trec_perl_cursor perl; /* perl: where the walk goes on (perlUnwindState) */
	__u64 ruby_cfp, ruby_end; /* ruby: next control frame, end of the VM stack */
	struct trec_rb_iseq_memo rb_iseq; /* ruby: for this trace (trace_reset clears it) */
	__u32 mappings_pid;   /* whose trie entries resolve pcs: the pid, or
			       * the parent of a fork not synced yet */
	__u32 vma_unwinder;   /* the selector for pcs in [vma_start, vma_end) */
	/* The VMA the last trie miss was resolved through: one bpf_find_vma
	 * per sample (its deferred unlock is per CPU), so the other frames
	 * in the same file come from here. vma_end 0: none. */
	__u64 vma_start, vma_end, vma_file_id, vma_bias;
	/* The CPU budget's window (bpf/cpu_budget.h); kept across traces. */
	__u64 budget_window_start, budget_used_ns;
	/* Stack replay (bpf/stack_replay.h): the last trace is a complete
	 * logged walk, its log in replay_logs[replay_log]; kept across traces. */
	__u32 replay_valid, replay_log;
	/* Its quiet mode: replay tries that failed in a row (saturating), the
	 * last trace was a try, it was replayed, the sample's place in the
	 * quiet cycle. */
	__u8 replay_misses, replay_try, replay_hit, replay_phase;
	/* Trace deltas (bpf/trace_delta.h): the seq of the last trace sent
	 * from this record; whether the last trace was sent from it. Kept
	 * across traces. */
	__u32 trace_seq, last_sent;
	/* An unwinder's bpf_loop (native, Python, PHP, Perl): the program
	 * after the loop. In the map, not the callback's stack context, whose
	 * values the verifier tracks: each constant stored there was one more
	 * pass over the callback before its states converged. */
	__s32 loop_next;
	/* php: the loop's next frame is the sampled one (trec_php_walk). */
	__u32 php_leaf;
	/* stack_replay.h's check, for the same reason: the next word of the
	 * old log to check; whether every word was the same; whether the
	 * next call checks word by word. */
	__u32 replay_check_next, replay_check_same, replay_check_slow;
	/* The stack window (trec_unwind_state.win_base): scratch of the walk
	 * and of the replay's check, not part of the cursor (a deferral does
	 * not carry it). A trace's reset leaves its bytes. */
	__u64 win[TREC_STACK_WINDOW / 8];
};

/* A record per CPU, at the CPU's index: a per-CPU array's value holds at
 * most 32 KiB, less than the stack window (unwind_state.h). trecord sets
 * max_entries to the possible CPUs (record/bpf_map_sizes.c). The sampler
 * and the off-CPU program never run nested on a CPU: sched_switch runs
 * with interrupts off. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trec_per_cpu_record);
} per_cpu_records SEC(".maps");

/* Traces and pid events to userspace. A ring buffer: one buffer shared by
 * all CPUs keeps events in order and sends only the used frame bytes.
 * trecord sets the size by mode (record/bpf_map_sizes.c). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} trace_events SEC(".maps");

/* Per-CPU failure and activity counters, indexed by enum trec_metric. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TREC_METRIC_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} metrics SEC(".maps");

/* pc -> (file id, bias, unwinder), keyed by big-endian (pid, page). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1 << 19);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct trec_pid_page_key);
	__type(value, struct trec_pid_page_value);
} pid_page_to_mapping_info SEC(".maps");

/* pids (pid_tgid) that userspace should sync; drained by trecord (only
 * when report_pid has set the latch). Each drain walks every bucket: at
 * 65536 that walk was 6% of trecord's CPU beside a shell starting 80
 * processes a second. 4096 pids reported between two drains (50 ms at
 * most) would be 80,000 new threads a second; a report that finds the
 * map full is counted (PID_REPORT_FAILED) and sent again after
 * reported_pids' interval. Preallocated:
 * allocated on use, the SAN build failed test_record_shortlived 2 times
 * in 27. A faster drain can sync a pid between its exit event and the
 * kernel dropping its mappings: the end of the recording removes such
 * pids (pid_state.c's remove_gone). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} pid_events SEC(".maps");

/* Rate limit for report_pid: pid -> ktime of the last report. An LRU (so
 * preallocated): trecord sizes it by mode (record/bpf_map_sizes.c). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} reported_pids SEC(".maps");

/* Latch: an event type present here is not signalled again until
 * userspace deletes the key after handling it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u8);
} inhibit_events SEC(".maps");

/* Wake-up notifications to userspace ("there are pids to sync"). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} report_events SEC(".maps");

/* Kernel stacks by stack id. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TREC_KERNEL_STACK_DEPTH * sizeof(__u64));
} kernel_stackmap SEC(".maps");

/* Stack deltas: see trec_types.h for the lookup rule. Written by trecord
 * only; allocated on use (a process tree needs a few hundred pages). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TREC_MAX_DELTA_PAGES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct trec_delta_page_key);
	__type(value, struct trec_delta_page_value);
} stack_delta_pages SEC(".maps");

/* Mmapable so trecord stores a file's deltas without a syscall each. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TREC_MAX_STACK_DELTAS / 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct trec_stack_delta_pair);
} stack_deltas SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TREC_MAX_UNWIND_INFOS);
	__type(key, __u32);
	__type(value, struct trec_unwind_info);
} unwind_info_array SEC(".maps");

/* Delta lookups already made on this CPU (delta_rule_cache.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TREC_DELTA_CACHE_SETS);
	__type(key, __u32);
	__type(value, struct trec_delta_cache_set);
} delta_rule_cache SEC(".maps");

/* Trie lookups already made on this CPU (text_page_cache.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TREC_TEXT_CACHE_SETS);
	__type(key, __u32);
	__type(value, struct trec_text_cache_slot);
} text_page_cache SEC(".maps");

/* file id -> interpreter loop range and unwinder program. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32);
	__type(key, __u64);
	__type(value, struct trec_offset_range);
} interpreter_offsets SEC(".maps");

/* Processes trecord follows when not recording everything (-p, -- cmd):
 * tgid -> 1. Children of followed processes are added on fork in BPF.
 * Allocated on use (-a needs none); a child that cannot be added is
 * FOLLOW_FAILED. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
} followed_pids SEC(".maps");

/* Forked processes -> their parent's tgid, from the fork tracepoint: a
 * child that has not exec'd runs its parent's image, so until trecord has
 * synced it, its pcs resolve through the parent's entries. LRU: the exec
 * and exit tracepoints remove entries, a missed one just ages out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} fork_parents SEC(".maps");

/* Executable file mappings trecord has described: (dev, inode, offset) ->
 * file id and vaddr (trec_types.h). Filled by userspace at each sync. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct trec_exec_file_key);
	__type(value, struct trec_exec_file_value);
} exec_files SEC(".maps");

/* The tail-call loop: slot = enum trec_unwinder. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, TREC_PROG_COUNT);
	__type(key, __u32);
	__type(value, __u32);
} unwinder_progs SEC(".maps");

/* The same programs compiled as tracing programs, for off-CPU stacks taken
 * in sched_switch (a prog array holds one program type): see
 * TREC_UNWINDER in tracemgmt.h. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, TREC_PROG_COUNT);
	__type(key, __u32);
	__type(value, __u32);
} offcpu_progs SEC(".maps");

/* Off-CPU: tid -> the trace taken when it blocked, until it runs again
 * (bpf/offcpu_prog.h). Allocated on use: only blocked threads take room. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TREC_OFFCPU_MAX_PENDING);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct trec_trace);
} offcpu_pending SEC(".maps");

#endif /* TREC_MAPS_H */
