/* SPDX-License-Identifier: MIT */
/*
 * Unwinder programs loaded only when a process needs them. Verifying the
 * interpreter unwinders costs more than the rest of trecord's start-up,
 * and most recordings never meet an interpreter. These programs stay in
 * bpf/trec.bpf.c, but trec_bpf_load() leaves them out; the first time
 * trecord routes frames to one (an interpreter_offsets entry),
 * trec_bpf_route_when_loaded() loads it, in a background thread, from a
 * second instance of the same object whose maps are the loaded ones, and
 * puts it in its unwinder_progs slot; with --off-cpu its tracing twin
 * (NAME_offcpu, bpf/tracemgmt.h TREC_UNWINDER) comes in the same load and
 * goes to the same slot of offcpu_progs.
 *
 * A new optional unwinder is a row of the table in bpf_optional.c (its
 * slot and program name), its routing map writes going through
 * trec_bpf_route_when_loaded().
 */
#ifndef TREC_BPF_OPTIONAL_H
#define TREC_BPF_OPTIONAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bpf_object;
struct trec_bpf_loader;
struct trec_bpf_optional;

/* Before the main object is loaded: marks the optional programs and their
 * off-CPU twins not to be loaded with it; off_cpu: load the twins on need
 * too. NULL on allocation failure. */
struct trec_bpf_optional *trec_bpf_optional_defer(struct bpf_object *obj, bool off_cpu);

/*
 * The map write (map_fd[key] = value, size <= 64) that routes frames to
 * slot `slot`, done once its program is in place, without waiting for the
 * load: a slot not loaded yet starts loading in a background thread (the
 * verifier can take seconds on a busy machine, and the pid sync that asks
 * must not stall meanwhile: until then those frames unwind as native
 * code). 0 if written or queued; a slot that failed before fails with err
 * set; a later failure is reported on stderr and the writes are dropped.
 */
int trec_bpf_route_when_loaded(struct trec_bpf_loader *l, int slot, int map_fd, uint64_t key,
			       const void *value, size_t size, char *err, size_t errlen);

/* The verifier and run-time statistics of the optional programs loaded
 * (after waiting for the loads still running). Not thread-safe against
 * new routes: at the end of a recording. */
void trec_bpf_optional_print_stats(struct trec_bpf_optional *o, FILE *out);

void trec_bpf_optional_free(struct trec_bpf_optional *o);

#endif /* TREC_BPF_OPTIONAL_H */
