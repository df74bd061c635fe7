// SPDX-License-Identifier: MIT
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
