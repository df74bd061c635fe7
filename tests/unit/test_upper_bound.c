// SPDX-License-Identifier: MIT
/* trec_upper_bound, the one address search both tools use: edge cases by
 * hand, then random sorted arrays against a linear count. */
#include <stdlib.h>
#include "upper_bound.h"
#include "unit_check.h"

/* The key is not the first field, so a wrong offset or stride shows. */
struct elem {
	uint32_t tag;
	uint64_t key;
	uint8_t pad;
};

static size_t linear(const struct elem *v, size_t n, uint64_t key)
{
	size_t k = 0;
	while (k < n && v[k].key <= key)
		k++;
	return k;
}

int main(void)
{
	static const struct elem v[] = {
		{ 1, 10, 0 }, { 2, 20, 0 }, { 3, 20, 0 }, { 4, 20, 0 }, { 5, 30, 0 },
		{ 6, UINT64_MAX, 0 },
	};
	const size_t n = sizeof(v) / sizeof(v[0]);

	CHECK("upper bound: empty array gives 0", TREC_UPPER_BOUND(v, 0, key, 0) == 0 &&
						  TREC_UPPER_BOUND((struct elem *)NULL, 0, key,
								   UINT64_MAX) == 0);
	CHECK("upper bound: before the first key gives 0",
	      TREC_UPPER_BOUND(v, n, key, 0) == 0 && TREC_UPPER_BOUND(v, n, key, 9) == 0);
	CHECK("upper bound: an exact hit counts the hit",
	      TREC_UPPER_BOUND(v, n, key, 10) == 1 && TREC_UPPER_BOUND(v, n, key, 30) == 5);
	CHECK("upper bound: between keys gives the one below",
	      TREC_UPPER_BOUND(v, n, key, 11) == 1 && TREC_UPPER_BOUND(v, n, key, 29) == 4);
	CHECK("upper bound: duplicates are all counted (result past the last of them)",
	      TREC_UPPER_BOUND(v, n, key, 20) == 4 && v[TREC_UPPER_BOUND(v, n, key, 20) - 1].tag == 4);
	CHECK("upper bound: UINT64_MAX as key and as last element gives n",
	      TREC_UPPER_BOUND(v, n, key, UINT64_MAX) == n &&
		      TREC_UPPER_BOUND(v, n, key, UINT64_MAX - 1) == n - 1);
	CHECK("upper bound: after the last key of a shorter array gives n",
	      TREC_UPPER_BOUND(v, 5, key, 1000) == 5);
	CHECK("upper bound: a single element", TREC_UPPER_BOUND(v, 1, key, 9) == 0 &&
						       TREC_UPPER_BOUND(v, 1, key, 10) == 1 &&
						       TREC_UPPER_BOUND(v, 1, key, 11) == 1);

	/* Random sorted arrays with many duplicates, every key around them. */
	unsigned seed = 7;
	int ok = 1;
	for (int iter = 0; iter < 300 && ok; iter++) {
		size_t m = (size_t)rand_r(&seed) % 40;
		struct elem r[40];
		uint64_t at = (uint64_t)(rand_r(&seed) % 3);
		for (size_t i = 0; i < m; i++) {
			at += (uint64_t)(rand_r(&seed) % 3); /* steps of 0 make duplicates */
			r[i] = (struct elem){ (uint32_t)i, at, 0 };
		}
		for (uint64_t key = 0; key <= at + 2 && ok; key++)
			ok = TREC_UPPER_BOUND(r, m, key, key) == linear(r, m, key);
	}
	CHECK("upper bound: 300 random arrays agree with a linear count", ok);
	return failures ? 1 : 0;
}
