// SPDX-License-Identifier: MIT
#include <errno.h>

#include "format/containers/vec.h"
#include "record/procs/lpm.h"

size_t trec_lpm_split(uint64_t start, uint64_t end, struct trec_lpm_prefix *out)
{
	uint64_t cur = start;
	size_t n = 0;

	while (cur < end && n < TREC_LPM_MAX_PREFIXES) {
		/* Alignment of cur; 0 is aligned to everything (the loop that
		 * never ended in the OTel profiler started here). */
		unsigned shift = cur ? (unsigned)__builtin_ctzll(cur) : 63;
		uint64_t left = end - cur;

		while (shift > 0 && (1ULL << shift) > left)
			shift--;
		out[n].addr = cur;
		out[n].bits = 64 - shift;
		n++;
		cur += 1ULL << shift;
		if (cur == 0) /* wrapped past the top of the address space */
			break;
	}
	return n;
}

void trec_lpm_key(struct trec_pid_page_key *k, uint32_t pid, uint64_t addr, uint32_t bits)
{
	k->prefix_len = 32 + bits;
	k->pid_be = __builtin_bswap32(pid);
	k->page_be = __builtin_bswap64(addr);
}

int trec_lpm_key_cmp(const struct trec_pid_page_key *a, const struct trec_pid_page_key *b)
{
	uint64_t pa = __builtin_bswap64(a->page_be), pb = __builtin_bswap64(b->page_be);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return (a->prefix_len > b->prefix_len) - (a->prefix_len < b->prefix_len);
}

int trec_lpm_entry_cmp(const void *a, const void *b)
{
	return trec_lpm_key_cmp(&((const struct trec_lpm_entry *)a)->k,
				&((const struct trec_lpm_entry *)b)->k);
}

int trec_lpm_add_range(struct trec_vec *ents, uint32_t pid, uint64_t start, uint64_t end,
		       const struct trec_pid_page_value *v)
{
	struct trec_lpm_prefix pre[TREC_LPM_MAX_PREFIXES];
	size_t n = trec_lpm_split(start, end, pre);

	for (size_t i = 0; i < n; i++) {
		struct trec_lpm_entry *e = trec_vec_push(ents);

		if (!e)
			return -ENOMEM;
		trec_lpm_key(&e->k, pid, pre[i].addr, pre[i].bits);
		e->v = *v;
	}
	return 0;
}
