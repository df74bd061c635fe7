/* SPDX-License-Identifier: MIT */
/*
 * Interpreter support behind one table, as perf's util/ puts backends
 * behind one header. Each interpreter (Python, and the ones after it) is a
 * struct trec_interp_ops in its own room under record/interp/; interp.c
 * lists them. The session starts them all; the threads call in:
 *
 *   sync thread, per executable file mapping   trec_interps_mapping()
 *   sync thread, per anonymous exec mapping    trec_interps_anon()
 *   writer thread, per trace (after SAMPLE)    trec_interps_trace()
 *   writer thread, exec and exit of a pid      trec_interps_exec/exit()
 *
 * A backend detects its interpreter in a mapped file, fills its BPF maps
 * (so the BPF side routes pcs in the interpreter loop to its unwinder
 * program) and describes the code objects traces name in records of its
 * own, so that treport needs neither the process nor the scripts.
 * Every op may be called from more than one thread: backends lock.
 */
#ifndef TREC_INTERP_H
#define TREC_INTERP_H

#include <stdbool.h>
#include <stdint.h>
#include "trec_types.h"

struct trec_bpf_fds;
struct trec_bpf_loader;
struct trec_file_deltas;
struct trec_output;
struct trecord_counters;

/* What a backend may use; valid from start to stop. */
struct trec_interp_env {
	struct trec_output *out;       /* records (lock it: record/io/output.h) */
	const struct trec_bpf_fds *fd; /* the BPF maps, its own among them */
	/* Loads the backend's unwinder program: trec_bpf_need_unwinder()
	 * (record/bpf_optional.h) before the first entry that routes to it. */
	struct trec_bpf_loader *bpf;
	bool verbose;
};

struct trec_interp_ops {
	const char *name;
	/* *state gets the backend's state. 0 or a negative errno. */
	int (*start)(void **state, const struct trec_interp_env *env);
	void (*stop)(void *state);
	/* An executable file mapping of pid (open_path opens the file, bias =
	 * start - ELF vaddr of its offset), before the pid's synced marker is
	 * written. 1 when it is this interpreter and pid is now set up, 0 when
	 * not, a negative errno on failure. */
	int (*on_mapping)(void *state, uint32_t pid, uint64_t file_id, const char *open_path,
			  uint64_t bias);
	/* Optional: an anonymous executable mapping [start, end) of code the
	 * interpreter generated, made of blocks of N bytes with stack deltas
	 * under a synthetic *file_id, each block its own bias (pid_sync.h's
	 * anon_exec_mapping). Returns N, 0 when not its own; the first time an
	 * id is returned *d holds the deltas of one block (else d->num = 0),
	 * *what names them for messages. */
	uint64_t (*on_anon)(void *state, uint32_t pid, uint64_t start, uint64_t end,
			    uint64_t *file_id, struct trec_file_deltas *d, const char **what);
	/* A trace of pid was written: describe its new frames' code. */
	void (*on_trace)(void *state, uint32_t pid, const struct trec_frame *frames, uint32_t n);
	/* pid exec'ed (its code objects are gone) / exited (forget it). */
	void (*on_exec)(void *state, uint32_t pid);
	void (*on_exit)(void *state, uint32_t pid);
	/* Copies its counters into trecord's. */
	void (*publish_stats)(void *state, struct trecord_counters *cnt);
};

/* A frame some backend's on_trace describes: the writer skips the
 * backends for samples without one. A new backend's kind goes here. */
static inline bool trec_interp_frame(uint8_t kind, uint8_t flags)
{
	return !(flags & TREC_FRAME_F_ERROR) &&
	       (kind == TREC_FRAME_PYTHON || kind == TREC_FRAME_PHP || kind == TREC_FRAME_RUBY ||
		kind == TREC_FRAME_PERL);
}

#define TREC_INTERP_MAX 8

struct trec_interps {
	const struct trec_interp_ops *ops[TREC_INTERP_MAX];
	void *state[TREC_INTERP_MAX];
	unsigned n; /* started */
};

/* Starts every backend; on error the started ones are stopped again. */
int trec_interps_start(struct trec_interps *in, const struct trec_interp_env *env);
void trec_interps_stop(struct trec_interps *in);

/* These accept in == NULL or a set with nothing started. */
int trec_interps_mapping(struct trec_interps *in, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias);
uint64_t trec_interps_anon(struct trec_interps *in, uint32_t pid, uint64_t start, uint64_t end,
			   uint64_t *file_id, struct trec_file_deltas *d, const char **what);
void trec_interps_trace(struct trec_interps *in, uint32_t pid, const struct trec_frame *frames,
			uint32_t n);
void trec_interps_exec(struct trec_interps *in, uint32_t pid);
void trec_interps_exit(struct trec_interps *in, uint32_t pid);
void trec_interps_publish_stats(struct trec_interps *in, struct trecord_counters *cnt);

#endif /* TREC_INTERP_H */
