// SPDX-License-Identifier: GPL-2.0
/*
 * The Python unwinder as a stand-alone BPF program, built and loaded by
 * tests/unit/test_python_bpf_load.c so that the verifier of the running
 * kernel checks bpf/python_unwind.h before bpf/trec.bpf.c wires it in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "trec_maps.h"
#include "python_unwind.h"

SEC("perf_event")
int unwind_python(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	struct trec_per_cpu_record *rec = bpf_map_lookup_elem(&per_cpu_records, &zero);

	if (!rec)
		return 0;
	bpf_tail_call(ctx, &unwinder_progs, trec_python_walk(rec));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
