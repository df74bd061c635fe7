/* SPDX-License-Identifier: MIT */
/*
 * Map sizes that depend on the recording: a command or -p at a modest rate
 * needs less ring buffer and pid bookkeeping than -a, and every byte of a
 * map is allocated, cleared and charged at start-up (the ring buffer also
 * counts twice in trecord's RSS: its data pages are mapped twice).
 */
#ifndef TREC_BPF_MAP_SIZES_H
#define TREC_BPF_MAP_SIZES_H

#include <stdbool.h>
#include <stdint.h>

struct trec_bpf;

struct trec_map_need {
	bool follow_all;       /* -a */
	uint64_t rate_per_cpu; /* samples per second per CPU (-F, or from -c) */
};

struct trec_map_sizes {
	uint32_t ring_bytes;    /* trace_events */
	uint32_t reported_pids; /* the report rate limiter's entries (an LRU) */
};

/* The sizes for a need (pure: unit-tested). */
struct trec_map_sizes trec_map_sizes_for(const struct trec_map_need *n);

/* Sets them on the opened, not yet loaded, skeleton. 0 or -errno. */
int trec_bpf_size_maps(struct trec_bpf *s, const struct trec_map_need *n);

#endif /* TREC_BPF_MAP_SIZES_H */
