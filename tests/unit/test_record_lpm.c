// SPDX-License-Identifier: MIT
/* The LPM prefix splitter: exact, aligned, minimal cover of a range. */
#include <stdint.h>
#include <stdlib.h>
#include "record/procs/lpm.h"
#include "unit_check.h"

/* Blocks must tile [start, end) exactly, each aligned to its size, and
 * none could be doubled (greedy = as few as possible). */
static int valid_cover(uint64_t start, uint64_t end)
{
	struct trec_lpm_prefix p[TREC_LPM_MAX_PREFIXES];
	size_t n = trec_lpm_split(start, end, p);
	uint64_t cur = start;

	for (size_t i = 0; i < n; i++) {
		uint64_t size = p[i].bits == 0 ? 0 : 1ULL << (64 - p[i].bits);

		if (p[i].addr != cur || p[i].bits < 1 || p[i].bits > 64 || (cur & (size - 1)))
			return 0;
		/* Greedy: a block twice as big would not have been aligned or fit. */
		if (p[i].bits > 1 && !(cur & (2 * size - 1)) && end - cur >= 2 * size)
			return 0;
		cur += size;
	}
	return cur == end || (start == end && n == 0);
}

int main(void)
{
	struct trec_lpm_prefix p[TREC_LPM_MAX_PREFIXES];
	size_t n;

	n = trec_lpm_split(10, 22, p);
	CHECK("lpm: [10,22) gives 10/63 12/62 16/62 20/63",
	      n == 4 && p[0].addr == 10 && p[0].bits == 63 && p[1].addr == 12 && p[1].bits == 62 &&
	      p[2].addr == 16 && p[2].bits == 62 && p[3].addr == 20 && p[3].bits == 63);
	n = trec_lpm_split(0x400000, 0x401000, p);
	CHECK("lpm: one aligned page is one prefix", n == 1 && p[0].bits == 52);
	n = trec_lpm_split(0, 0x1000, p);
	CHECK("lpm: start 0 terminates (the OTel infinite loop)", n == 1 && p[0].addr == 0 && p[0].bits == 52);
	n = trec_lpm_split(0, 1, p);
	CHECK("lpm: [0,1) is one full-length prefix", n == 1 && p[0].bits == 64);
	CHECK("lpm: empty range gives nothing", trec_lpm_split(5, 5, p) == 0);
	CHECK("lpm: reversed range gives nothing", trec_lpm_split(9, 5, p) == 0);
	CHECK("lpm: top of the user address space", valid_cover(0x7ffffffde000, 0x7ffffffff000));
	CHECK("lpm: up to 2^64 - 1", valid_cover(0xffffffffff600000, 0xffffffffffffffffULL));

	int ok = 1;
	srand(1);
	for (int i = 0; i < 20000 && ok; i++) {
		uint64_t a = ((uint64_t)rand() << 33 ^ (uint64_t)rand() << 12 ^ rand()) & 0x7fffffffffffULL;
		uint64_t len = (uint64_t)rand() * (i % 3 ? 4096 : 1) + 1;

		if (i % 7 == 0)
			a &= ~0xfffULL;
		ok = valid_cover(a, a + len);
	}
	CHECK("lpm: 20000 random ranges tile exactly with greedy aligned blocks", ok);
	n = trec_lpm_split(1, 0x7ffffffff000, p);
	CHECK("lpm: worst case stays within TREC_LPM_MAX_PREFIXES", n <= TREC_LPM_MAX_PREFIXES && valid_cover(1, 0x7ffffffff000));
	return failures != 0;
}
