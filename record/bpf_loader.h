/* SPDX-License-Identifier: MIT */
/*
 * Loading and attaching trec's BPF programs: the sampler on a cpu-clock
 * perf event per CPU, the unwinders in the tail-call array, and the
 * process-tracking tracepoints. Errors come back as one message for the
 * user.
 */
#ifndef TREC_BPF_LOADER_H
#define TREC_BPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>

struct trec_bpf;        /* the skeleton */
struct bpf_link;
struct bpf_object;
struct trec_bpf_optional;

struct trec_bpf_loader {
	struct trec_bpf *skel;
	struct bpf_link **perf_links; /* the sampler's events (their links own the fds) */
	int num_perf_links;
	size_t cap_perf_links;
	bool per_task;       /* the events watch threads, not CPUs */
	int num_cpus;        /* possible CPUs (per-CPU map values) */
	struct trec_bpf_optional *optional; /* unwinders loaded on need (bpf_optional.h) */
	bool verbose;
	const uint8_t *cpus; /* -C: sample on cpus[cpu] != 0 only; NULL: all */
	int cpus_len;        /* entries in cpus */
	uint64_t period_ns;  /* -c: sample every period_ns of CPU time; 0: freq_hz */
};

struct trec_bpf_opts {
	bool follow_all;          /* -a: sample every process */
	uint64_t report_interval_ns;
	double max_cpu_pct;       /* the sampler's CPU budget; 0: the default */
	bool verbose;             /* libbpf messages and verifier stats */
	bool off_cpu;             /* --off-cpu: load the sched_switch programs */
	uint64_t offcpu_min_ns;   /* shorter waits are not written */
	bool defer_unwind;        /* bpf/deferred.h: copy stacks of loading files */
	bool no_trace_deltas;     /* bpf/trace_delta.h: every trace sent whole */
	uint64_t rate_per_cpu;    /* samples/s per CPU: sizes the maps (bpf_map_sizes.h) */
	/* -t, -u, -G (bpf/trec.bpf.c passes_filters); 0 / TREC_NO_UID: none */
	const uint32_t *tids;
	uint32_t num_tids;
	uint32_t uid;
	uint64_t cgroup_id;
};

/* Opens, configures and loads the object; fills the prog array. 0 or a
 * negative errno with a message in err. */
int trec_bpf_load(struct trec_bpf_loader *l, const struct trec_bpf_opts *o,
		  char *err, size_t errlen);
/* Attaches the tracepoints (and sched_switch with off_cpu). */
int trec_bpf_attach_tracking(struct trec_bpf_loader *l, char *err, size_t errlen);
/* Whether the kernel accepts freq_hz (perf_event_max_sample_rate). */
int trec_bpf_check_freq(unsigned freq_hz, char *err, size_t errlen);

/* Who the sampler's perf events watch (record/sample_events.c). */
struct trec_sample_target {
	const uint32_t *pids; /* every thread of these, and what they start */
	size_t num_pids;
	const uint32_t *tids; /* these threads only (perf -t): not inherited */
	size_t num_tids;
};

/* Starts sampling at freq_hz on every online CPU (or -C's): every
 * process; the sampler picks its samples. */
int trec_bpf_attach_sampling(struct trec_bpf_loader *l, unsigned freq_hz,
			     char *err, size_t errlen);
/* Starts sampling at freq_hz on the target's threads only, as perf
 * record -p, -t and -- cmd do: other programs, idle CPUs and trecord
 * itself take no interrupt. -E2BIG (more threads than events are kept
 * for) or -EMFILE: nothing attached, the caller samples per CPU. */
int trec_bpf_attach_sampling_tasks(struct trec_bpf_loader *l, unsigned freq_hz,
				   const struct trec_sample_target *t, char *err, size_t errlen);
/* Stops sampling (tracepoints stay). */
void trec_bpf_detach_sampling(struct trec_bpf_loader *l);
/* The message for a permission error e (negative errno); returns e. */
int trec_bpf_needs_root(char *err, size_t errlen, int e);
/* Stops the tracepoints: nothing more enters the ring buffer. */
void trec_bpf_detach_tracking(struct trec_bpf_loader *l);
void trec_bpf_destroy(struct trec_bpf_loader *l);

/* The map fds the rest of trecord uses, taken from the skeleton's fields
 * (a renamed map breaks the build, not a recording). */
struct trec_bpf_fds {
	int trace_events, report_events, metrics, kernel_stackmap;
	int pid_page_to_mapping_info, reported_pids, pid_events, inhibit_events;
	int stack_delta_pages, stack_deltas, unwind_info_array;
	int followed_pids, exec_files, py_procs, interpreter_offsets;
	int php_procs;
	int perl_procs;
	int ruby_procs;
	int defer_files;
};

/* After trec_bpf_load: the trie's generation (bpf/stack_replay_log.h). */
volatile __u64 *trec_bpf_maps_gen(struct trec_bpf_loader *l);

/* After trec_bpf_load. */
void trec_bpf_get_fds(const struct trec_bpf_loader *l, struct trec_bpf_fds *fds);

/* --off-cpu: threads whose wait has not ended (traces still parked). */
uint64_t trec_bpf_offcpu_pending(const struct trec_bpf_loader *l);

/* Sums a per-CPU u64 array map into out[0..n). 0 or a negative errno. */
int trec_bpf_sum_percpu(const struct trec_bpf_loader *l, int map_fd, uint64_t *out, size_t n);

/* Prints verified instruction counts and run-time stats per program. */
void trec_bpf_print_prog_stats(const struct trec_bpf_loader *l, FILE *out);
/* The same for the loaded programs of one object. */
void trec_bpf_print_obj_stats(struct bpf_object *obj, FILE *out);

#endif /* TREC_BPF_LOADER_H */
