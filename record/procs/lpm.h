/* SPDX-License-Identifier: MIT */
/*
 * Splits an address range into the aligned power-of-two blocks an LPM trie
 * can hold: from each address take the largest block that is aligned there
 * and still fits. [10,22) -> 10/63, 12/62, 16/62, 20/63 (address/prefix
 * bits). O(log) blocks per range.
 */
#ifndef TREC_LPM_H
#define TREC_LPM_H

#include <stddef.h>
#include <stdint.h>
#include "trec_types.h"

struct trec_vec;

struct trec_lpm_prefix {
	uint64_t addr;       /* block start, aligned to 2^(64 - bits) */
	uint32_t bits;       /* 1..64: leading address bits that must match */
};

/* Worst case: two blocks per bit of the range size. */
#define TREC_LPM_MAX_PREFIXES 128

/* Fills out[] (room for TREC_LPM_MAX_PREFIXES) with the blocks covering
 * [start, end). Returns the count; 0 for an empty range. */
size_t trec_lpm_split(uint64_t start, uint64_t end, struct trec_lpm_prefix *out);

/* A key of the pid/page trie: pid, then the block's address, both big
 * endian so the prefix covers the pid and the leading address bits. */
void trec_lpm_key(struct trec_pid_page_key *k, uint32_t pid, uint64_t addr, uint32_t bits);

/* One trie entry. Lists of them are kept sorted by trec_lpm_entry_cmp. */
struct trec_lpm_entry {
	struct trec_pid_page_key k;
	struct trec_pid_page_value v;
};

/* Orders keys by address, then prefix length (within one pid). */
int trec_lpm_key_cmp(const struct trec_pid_page_key *a, const struct trec_pid_page_key *b);
int trec_lpm_entry_cmp(const void *a, const void *b);

/* Appends to ents (a vec of struct trec_lpm_entry) the entries covering
 * [start, end) of pid with value v. -ENOMEM, or 0. */
int trec_lpm_add_range(struct trec_vec *ents, uint32_t pid, uint64_t start, uint64_t end,
		       const struct trec_pid_page_value *v);

#endif /* TREC_LPM_H */
