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

struct trec_lpm_prefix {
	uint64_t addr;       /* block start, aligned to 2^(64 - bits) */
	uint32_t bits;       /* 1..64: leading address bits that must match */
};

/* Worst case: two blocks per bit of the range size. */
#define TREC_LPM_MAX_PREFIXES 128

/* Fills out[] (room for TREC_LPM_MAX_PREFIXES) with the blocks covering
 * [start, end). Returns the count; 0 for an empty range. */
size_t trec_lpm_split(uint64_t start, uint64_t end, struct trec_lpm_prefix *out);

#endif /* TREC_LPM_H */
