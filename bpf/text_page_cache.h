/* SPDX-License-Identifier: MIT */
/*
 * A per-CPU, direct-mapped cache of the pid/page trie's answers that
 * outlives the trace: (pid, page) -> file id, bias and unwinder. An LPM
 * trie lookup walks its nodes (tens of ns, more with every process -a
 * follows), and a trace meets each of its pages once, so the trace's
 * one-page memo does not spare them; most pages recur from one sample to
 * the next. The pid's "synced" marker {pid, 0}, asked at every sample,
 * is kept under pc 0 (no text page holds it).
 *
 * Never stale: an entry holds trec_maps_gen as read before its trie
 * lookup, and counts only while the generation is unchanged. trecord
 * bumps it after each change of the trie (record/unwind/map_sinks.c), as
 * forget_pid() does, so a lookup that raced a change is stored under a
 * generation already past.
 */
#ifndef TREC_TEXT_PAGE_CACHE_H
#define TREC_TEXT_PAGE_CACHE_H

#include "trec_maps.h"

static __always_inline struct trec_text_cache_slot *text_cache_slot(__u32 pid, __u64 page)
{
	__u32 i = (__u32)(page ^ (page >> 7) ^ pid ^ (pid >> 8)) & (TREC_TEXT_CACHE_SETS - 1);

	return bpf_map_lookup_elem(&text_page_cache, &i);
}

/* The cached answer for pc of pid, if the maps are those it was read from. */
static __always_inline struct trec_text_cache_slot *text_cache_get(__u32 pid, __u64 pc, __u64 gen)
{
	__u64 page = (pc >> 12) + 1;
	struct trec_text_cache_slot *s = text_cache_slot(pid, page);

	return s && s->page == page && s->pid == pid && s->gen == gen ? s : NULL;
}

static __always_inline void text_cache_put(__u32 pid, __u64 pc, __u64 gen,
					   const struct trec_pid_page_value *v)
{
	__u64 page = (pc >> 12) + 1;
	struct trec_text_cache_slot *s = text_cache_slot(pid, page);

	if (!s)
		return;
	s->page = page;
	s->gen = gen;
	s->file_id = v->file_id;
	s->bias_and_unwinder = v->bias_and_unwinder;
	s->pid = pid;
}

/* The trie's answer for pc of pid (pc 0: the pid's marker), from the
 * cache while the maps are those it was read from; false if the trie
 * has none. */
static __always_inline bool trie_lookup_cached(__u32 pid, __u64 pc, __u64 *file_id,
					       __u64 *bias_and_unwinder)
{
	struct trec_pid_page_key key = {
		.prefix_len = 96,
		.pid_be = __builtin_bswap32(pid),
		.page_be = __builtin_bswap64(pc),
	};
	__u64 gen = trec_maps_gen; /* before the lookup: see above */
	struct trec_text_cache_slot *c = text_cache_get(pid, pc, gen);
	struct trec_pid_page_value *v;

	if (c) {
		*file_id = c->file_id;
		*bias_and_unwinder = c->bias_and_unwinder;
		return true;
	}
	v = bpf_map_lookup_elem(&pid_page_to_mapping_info, &key);
	if (!v)
		return false;
	*file_id = v->file_id;
	*bias_and_unwinder = v->bias_and_unwinder;
	text_cache_put(pid, pc, gen, v);
	return true;
}

#endif /* TREC_TEXT_PAGE_CACHE_H */
