/* SPDX-License-Identifier: MIT */
/*
 * Lets the BPF unwinder source compile as ordinary userspace C, for the
 * offline harness (tests/harness/). Include it first, with
 * -DTREC_TESTING_OFFLINE, then the program (trec.bpf.c), then define the
 * helpers declared here: they are static, so the definitions can dispatch
 * on the addresses of the map objects the program defines (tests/harness/
 * harness_bpf.c). Map definitions from trec_maps.h become plain zeroed
 * globals whose only use is their address.
 */
#ifndef TREC_TESTING_SHIM_H
#define TREC_TESTING_SHIM_H

#ifndef TREC_TESTING_OFFLINE
#error "testing_shim.h is only for the offline harness (-DTREC_TESTING_OFFLINE)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bpf.h> /* BPF_MAP_TYPE_*, BPF_ANY, BPF_RB_*, BPF_F_* */

/* libbpf's bpf_helpers.h macros, without the ELF section placement. */
#define SEC(name)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __uint(name, val) int(*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __array(name, val) __typeof__(val) *name[]

/* .rodata knobs become globals the harness may set. */
#define TREC_RODATA(type, name, value) type name = value
#define TREC_BSS(type, name) type name

/* Helpers the program calls; defined by the harness translation unit. */
static void *bpf_map_lookup_elem(void *map, const void *key);
static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags);
static long bpf_map_delete_elem(void *map, const void *key);
static long bpf_probe_read_user(void *dst, __u32 size, const void *unsafe_ptr);
static __u64 bpf_ktime_get_ns(void);
/* One CPU offline: the per-CPU maps' index. */
static inline __u32 bpf_get_smp_processor_id(void)
{
	return 0;
}
/* Never returns on success (longjmp into the harness's dispatch loop). */
static long bpf_tail_call(void *ctx, void *prog_array_map, __u32 index);
static long bpf_ringbuf_output(void *ringbuf, void *data, __u64 size, __u64 flags);

/* Wake-up plumbing, which nothing offline needs. */
static inline __u64 bpf_ringbuf_query(void *ringbuf, __u64 flags)
{
	(void)ringbuf, (void)flags;
	return 0;
}

static inline long bpf_perf_event_output(void *ctx, void *map, __u64 flags, void *data,
					 __u64 size)
{
	(void)ctx, (void)map, (void)flags, (void)data, (void)size;
	return 0;
}

/* bpf_loop as the kernel runs it: the callback until it returns non-zero;
 * the count of calls made. */
static inline long bpf_loop(__u32 nr, void *callback, void *ctx, __u64 flags)
{
	long (*cb)(__u64, void *) = (long (*)(__u64, void *))callback;
	__u32 i;

	(void)flags;
	for (i = 0; i < nr;)
		if (cb(i++, ctx))
			break;
	return i;
}

#endif /* TREC_TESTING_SHIM_H */
