/* SPDX-License-Identifier: MIT */
/*
 * Definitions of the bpf/testing_shim.h helpers an unwinder under unit
 * test never calls (bpf/tracemgmt.h refers to them): each fails. The test
 * defines the helpers it does use (map lookups, user memory reads).
 */
#ifndef TREC_SHIM_STUBS_H
#define TREC_SHIM_STUBS_H

#include <errno.h>

static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags)
{
	return -EINVAL;
}

static __attribute__((unused)) long bpf_map_delete_elem(void *map, const void *key)
{
	return -EINVAL;
}

static __u64 bpf_ktime_get_ns(void)
{
	return 0;
}

static long bpf_tail_call(void *ctx, void *prog_array_map, __u32 index)
{
	return -EINVAL;
}

static long bpf_ringbuf_output(void *ringbuf, void *data, __u64 size, __u64 flags)
{
	return -EINVAL;
}

#endif /* TREC_SHIM_STUBS_H */
