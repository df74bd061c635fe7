/* SPDX-License-Identifier: MIT */
/*
 * Unwinder programs loaded only when a process needs them. Verifying the
 * interpreter unwinders costs more than the rest of trecord's start-up,
 * and most recordings never meet an interpreter. These programs stay in
 * bpf/trec.bpf.c, but trec_bpf_load() leaves them out; the first time
 * trecord routes frames to one (an interpreter_offsets entry, an LPM
 * selector naming its slot), trec_bpf_need_unwinder() loads it from a
 * second instance of the same object whose maps are the loaded ones, and
 * puts it in its unwinder_progs slot; with --off-cpu its tracing twin
 * (NAME_offcpu, bpf/tracemgmt.h TREC_UNWINDER) comes in the same load and
 * goes to the same slot of offcpu_progs.
 *
 * A new optional unwinder is a row of the table in bpf_optional.c (its
 * slot and program name), and a trec_bpf_need_unwinder() call before the
 * first map entry that routes to its slot.
 */
#ifndef TREC_BPF_OPTIONAL_H
#define TREC_BPF_OPTIONAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct bpf_object;
struct trec_bpf_loader;
struct trec_bpf_optional;

/* Before the main object is loaded: marks the optional programs and their
 * off-CPU twins not to be loaded with it; off_cpu: load the twins on need
 * too. NULL on allocation failure. */
struct trec_bpf_optional *trec_bpf_optional_defer(struct bpf_object *obj, bool off_cpu);

/*
 * Ensures the program for unwinder slot `slot` is in unwinder_progs (and
 * its twin in offcpu_progs with --off-cpu).
 * 0 at once for a slot that is not optional or already loaded; a slot
 * that failed to load fails again without another attempt. Thread-safe.
 * On failure, err says why: the caller must then not route to the slot.
 */
int trec_bpf_need_unwinder(struct trec_bpf_loader *l, int slot, char *err, size_t errlen);

/* The verifier and run-time statistics of the optional programs loaded. */
void trec_bpf_optional_print_stats(const struct trec_bpf_optional *o, FILE *out);

void trec_bpf_optional_free(struct trec_bpf_optional *o);

#endif /* TREC_BPF_OPTIONAL_H */
