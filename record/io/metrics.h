/* SPDX-License-Identifier: MIT */
/*
 * The METRICS record: the BPF counters (summed over CPUs, ids of
 * enum trec_metric) and trecord's own counters (ids from 1000, listed in
 * format/trecord_metrics.h).
 */
#ifndef TREC_METRICS_H
#define TREC_METRICS_H

#include <stdatomic.h>
#include <stdint.h>
#include "trec_errors.h"
#include "trecord_metrics.h"

struct trecord_counters {
	_Atomic uint64_t v[TRECORD_METRIC_COUNT];
};

static inline void trecord_count(struct trecord_counters *c, enum trecord_metric m, uint64_t n)
{
	atomic_fetch_add_explicit(&c->v[m], n, memory_order_relaxed);
}

static inline void trecord_set(struct trecord_counters *c, enum trecord_metric m, uint64_t n)
{
	atomic_store_explicit(&c->v[m], n, memory_order_relaxed);
}

struct trec_output;
struct trec_writer;
struct trec_bpf_loader;

/* Sums the BPF counters into bpf[TREC_METRIC_COUNT]. */
int trec_metrics_read_bpf(const struct trec_bpf_loader *l, int metrics_fd, uint64_t *bpf);
/* Writes one METRICS record with both sets. */
int trec_metrics_write(struct trec_output *o, const uint64_t *bpf,
		       const struct trecord_counters *c, uint64_t time_ns);

/* The same, to a writer the caller holds (a switched file). */
int trec_metrics_write_to(struct trec_writer *w, const uint64_t *bpf,
			  const struct trecord_counters *c, uint64_t time_ns);

#endif /* TREC_METRICS_H */
