/* SPDX-License-Identifier: MIT */
/*
 * Binary search over an array of structs sorted by a uint64_t field, used
 * by both tools for every "which symbol/mapping/range holds this address"
 * lookup. Header-only so the stride and offset fold into the loop at each
 * call site (report's symbol lookups run once per frame).
 */
#ifndef TREC_UPPER_BOUND_H
#define TREC_UPPER_BOUND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The number of leading elements (n of them, stride bytes apart) whose
 * uint64_t key at key_off is <= key: the index of the first element above
 * key, so the last one at or below key is at the result - 1 (none if 0).
 * With equal keys, the result is past all of them.
 */
static inline size_t trec_upper_bound(const void *base, size_t n, size_t stride,
				      size_t key_off, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;
		memcpy(&v, b + mid * stride + key_off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* trec_upper_bound over arr[0..n) by arr[i].field, which must be a uint64_t
 * (a compile error otherwise). */
#define TREC_UPPER_BOUND(arr, n, field, key)                                           \
	trec_upper_bound((arr), (n), sizeof(*(arr)),                                   \
			 offsetof(__typeof__(*(arr)), field) +                         \
				 0 * sizeof(char[__builtin_types_compatible_p(         \
						 __typeof__((arr)->field), uint64_t) ? 1 : -1]), \
			 (key))

#endif
