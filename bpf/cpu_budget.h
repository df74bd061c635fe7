/* SPDX-License-Identifier: MIT */
/*
 * The sampler's CPU budget: a profiler must never stall the machine it
 * observes. Each CPU accounts the time its samples spend in BPF (from the
 * sampler's entry, trace.ktime_ns, to the end of the trace's send) over windows of
 * budget_window_ns; once a window's spending reaches budget_ns, its
 * remaining samples skip the user-stack walk and keep only their leaf and
 * kernel stack, ending in a THROTTLED error frame. Overspending carries
 * into the next windows, so one deep walk cannot double the share.
 *
 * Off-CPU stacks (offcpu_prog.h) draw on the same budget: their ktime_ns
 * is the switch-out program's entry, and a budget spent cuts them to their
 * leaf too. Their wait is measured from that same ktime_ns at switch-in,
 * which charges nothing.
 *
 * Included by tracemgmt.h (send_trace charges the budget). State lives in
 * the per-CPU record: no lookup beyond the one every sample already does.
 */
#ifndef TREC_CPU_BUDGET_H
#define TREC_CPU_BUDGET_H

/* Set by trecord from --max-cpu: at most budget_ns per budget_window_ns of
 * BPF time per CPU. The default is 10%. */
TREC_RODATA(__u64, budget_window_ns, 10000000ULL);
TREC_RODATA(__u64, budget_ns, 1000000ULL);

static __always_inline void add_metric(__u32 id, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&metrics, &id);

	if (v)
		__sync_fetch_and_add(v, n);
}

/* Whether the sample starting at `now` must be cut short; opens a new
 * window when the last one is over. */
static __always_inline bool budget_exhausted(struct trec_per_cpu_record *rec, __u64 now)
{
	__u64 elapsed = now - rec->budget_window_start;

	if (budget_window_ns && elapsed >= budget_window_ns) {
		/* What earlier windows overspent is paid back from their
		 * successors' allowance. */
		__u64 allowance = (elapsed / budget_window_ns) * budget_ns;

		rec->budget_used_ns = rec->budget_used_ns > allowance
					      ? rec->budget_used_ns - allowance : 0;
		rec->budget_window_start = now;
	}
	return rec->budget_used_ns >= budget_ns;
}

/* Charges the trace just sent (or parked, off-CPU): from its program's
 * entry to now. */
static __always_inline void budget_charge(struct trec_per_cpu_record *rec)
{
	__u64 spent = bpf_ktime_get_ns() - rec->trace.ktime_ns;

	/* A clock that went backwards, or a harness's fake one. */
	if (spent > budget_window_ns)
		spent = budget_window_ns;
	rec->budget_used_ns += spent;
	add_metric(TREC_METRIC_SAMPLER_NS, spent);
}

#endif /* TREC_CPU_BUDGET_H */
