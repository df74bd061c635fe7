// SPDX-License-Identifier: MIT
#include <bpf/libbpf.h>
#include "record/bpf_map_sizes.h"
#include "deferred_types.h"
#include "trec.skel.h"

/* -a, or a fast rate: the full 16 MiB, which `-a -F 20000` on 2 busy CPUs
 * needs to lose nothing. Otherwise 8 MiB: twice the backlog at which
 * deferrals stop (bpf/deferred.h), room for whole traces beyond it. */
#define RING_FULL (16U << 20)
#define RING_SMALL (2 * TREC_DEFER_MAX_RING_BACKLOG)
#define SMALL_RING_MAX_RATE 1000

/* The rate limiter forgets the least recently reported pid when full: a
 * pid reported again early costs one more sync request, nothing else. */
#define REPORTED_PIDS_ALL 65536
#define REPORTED_PIDS_FOLLOWED 8192

/* kernel_stackmap keeps its 16384 stacks in every mode: at 4096 a command
 * of test_record_kernel.sh had stack ids fail (bucket collisions). */

struct trec_map_sizes trec_map_sizes_for(const struct trec_map_need *n)
{
	bool big = n->follow_all || n->rate_per_cpu > SMALL_RING_MAX_RATE;

	return (struct trec_map_sizes){
		.ring_bytes = big ? RING_FULL : RING_SMALL,
		.reported_pids = n->follow_all ? REPORTED_PIDS_ALL : REPORTED_PIDS_FOLLOWED,
	};
}

int trec_bpf_size_maps(struct trec_bpf *s, const struct trec_map_need *n)
{
	struct trec_map_sizes z = trec_map_sizes_for(n);
	int cpus = libbpf_num_possible_cpus();
	int e = bpf_map__set_max_entries(s->maps.trace_events, z.ring_bytes);

	e = e ?: bpf_map__set_max_entries(s->maps.reported_pids, z.reported_pids);
	if (!e && cpus < 0)
		e = cpus;
	/* one deferral being built per CPU (bpf/deferred.h), one trace */
	e = e ?: bpf_map__set_max_entries(s->maps.defer_scratch, (__u32)cpus);
	return e ?: bpf_map__set_max_entries(s->maps.per_cpu_records, (__u32)cpus);
}
