/* SPDX-License-Identifier: MIT */
/*
 * The kallsyms snapshot, read on a helper thread when the first kernel
 * frame needs it, not at start: the kernel formatting /proc/kallsyms'
 * 120k lines is a quarter of a short recording's start-up CPU, and the
 * writer must not stall on it either (its first flush keeps a killed
 * recording's samples). The kernel addresses used meanwhile wait in a
 * list and are flagged once the snapshot is there. Writer thread only.
 */
#ifndef TREC_KSYMS_LAZY_H
#define TREC_KSYMS_LAZY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/kernel/kallsyms.h"

struct trec_ksyms_lazy {
	struct trec_kallsyms *k;      /* filled by the helper thread */
	struct trec_ksym_subset used; /* valid once ready */
	bool quiet;                   /* no warning when it cannot be read */
	bool started;
	atomic_bool loaded;           /* the helper is done */
	bool ready;                   /* joined, pending flagged */
	pthread_t thread;
	uint64_t time_ns;             /* when the snapshot was read */
	struct trec_ksym_use {
		uint64_t addr;
		bool return_address;
	} *pending;
	size_t num_pending, cap_pending;
	uint64_t dropped;             /* addresses beyond the pending bound */
	/* Addresses flagged lately (direct-mapped): at -a rates the same
	 * kernel pcs come back all the time, and each flag is two binary
	 * searches of the whole snapshot. */
	uint64_t recent[4096];
};

void trec_ksyms_lazy_init(struct trec_ksyms_lazy *l, struct trec_kallsyms *k, bool quiet);
/* A kernel frame's address: starts the read the first time. */
void trec_ksyms_lazy_use(struct trec_ksyms_lazy *l, uint64_t addr, bool return_address);
/* Whether the snapshot is there (then used is complete); wait: until the
 * read in progress ends. */
bool trec_ksyms_lazy_ready(struct trec_ksyms_lazy *l, bool wait);
void trec_ksyms_lazy_free(struct trec_ksyms_lazy *l);

#endif /* TREC_KSYMS_LAZY_H */
