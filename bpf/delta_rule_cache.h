/* SPDX-License-Identifier: MIT */
/*
 * A per-CPU, two-way set-associative cache of stack-delta lookups that outlives the
 * trace: (file id, lookup address) -> unwind_info. A stack of distinct
 * functions repeats its return addresses from one sample to the next but
 * not within a trace, so the per-trace memos miss on every frame; here a
 * hit is one slot read instead of a binary search of up to 16 lookups.
 *
 * Never stale: trecord writes a file id's deltas once and never changes or
 * frees them, and interned rules keep their index (record/unwind/
 * delta_store.c), so a key always finds the same rule. Only found rules
 * are kept; a page without deltas is asked again next time.
 *
 * A map of its own (trec_maps.h): the per-CPU record has no room left.
 */
#ifndef TREC_DELTA_RULE_CACHE_H
#define TREC_DELTA_RULE_CACHE_H

#include "trec_maps.h"

/* Lookup addresses are ELF vaddrs; wider ones are not cached. */
#define TREC_DELTA_CACHE_ADDR_BITS 48

/* Return addresses of one file are near each other: low bits spread them
 * (calls are 5 bytes or more, but for `call *%reg`), the file id keeps
 * files apart. Two ways per set: a pair of return addresses 4 KiB apart
 * does not evict each other on every trace. */
static __always_inline struct trec_delta_cache_set *delta_cache_set(__u64 file_id, __u64 addr)
{
	__u32 i = (__u32)((addr >> 2) ^ file_id ^ (file_id >> 32)) & (TREC_DELTA_CACHE_SETS - 1);

	return bpf_map_lookup_elem(&delta_rule_cache, &i);
}

static __always_inline bool delta_cache_get(__u64 file_id, __u64 addr, __u16 *unwind_info)
{
	struct trec_delta_cache_set *s;
	__u64 key = addr << 16;

	if (!file_id)
		return false;
	s = delta_cache_set(file_id, addr);
	if (!s)
		return false;
	for (int w = 0; w < TREC_DELTA_CACHE_WAYS; w++) {
		if (s->way[w].file_id == file_id && (s->way[w].addr_info & ~0xffffULL) == key) {
			*unwind_info = (__u16)s->way[w].addr_info;
			return true;
		}
	}
	return false;
}

static __always_inline void delta_cache_put(__u64 file_id, __u64 addr, __u16 unwind_info)
{
	struct trec_delta_cache_set *s;

	if (!file_id || addr >> TREC_DELTA_CACHE_ADDR_BITS)
		return;
	s = delta_cache_set(file_id, addr);
	if (!s)
		return;
	s->way[1] = s->way[0];
	s->way[0].file_id = file_id;
	s->way[0].addr_info = addr << 16 | unwind_info;
}

#endif /* TREC_DELTA_RULE_CACHE_H */
