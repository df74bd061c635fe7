// SPDX-License-Identifier: MIT
/*
 * The deferred walk's memo of successful map lookups
 * (record/unwind/deferred/lookup_memo.h): a hit returns the value put
 * this pass, by fd and exact key; a new pass forgets everything; a
 * collision forgets the older entry; oversized keys and values are never
 * kept. Its use by the walk (defer_files asked afresh) is in
 * test_record_deferred.c, which has the maps.
 */
#include <stdlib.h>
#include <string.h>
#include "record/unwind/deferred/lookup_memo.h"
#include "unit_check.h"

struct key16 {
	uint64_t a, b;
};

int main(void)
{
	struct trec_lookup_memo *m = trec_lookup_memo_new();
	struct key16 k = { 0x1234, 0x400000 }, k2 = { 0x1234, 0x401000 };
	uint64_t v = 0xaabbccdd, out = 0;
	uint32_t small = 5;
	uint8_t big_key[TREC_LOOKUP_MEMO_KEY + 1] = { 0 }, big_val[TREC_LOOKUP_MEMO_VALUE + 1] = { 0 };
	size_t found = 0, n = 3 * TREC_LOOKUP_MEMO_SLOTS;

	if (!m) {
		printf("FAIL: memo allocation\n");
		return 1;
	}
	CHECK("memo: empty misses", !trec_lookup_memo_get(m, 3, &k, sizeof(k), &out, sizeof(out)));
	trec_lookup_memo_put(m, 3, &k, sizeof(k), &v, sizeof(v));
	CHECK("memo: a put is found with its value",
	      trec_lookup_memo_get(m, 3, &k, sizeof(k), &out, sizeof(out)) && out == v);
	CHECK("memo: another key misses", !trec_lookup_memo_get(m, 3, &k2, sizeof(k2), &out, sizeof(out)));
	CHECK("memo: the same key of another map misses",
	      !trec_lookup_memo_get(m, 4, &k, sizeof(k), &out, sizeof(out)));
	trec_lookup_memo_put(m, 5, &small, sizeof(small), &v, sizeof(v));
	CHECK("memo: a short key (unwind info index) is found",
	      trec_lookup_memo_get(m, 5, &small, sizeof(small), &out, sizeof(out)) && out == v);
	CHECK("memo: counts hits and misses", m->hits == 2 && m->misses == 3);

	trec_lookup_memo_new_pass(m);
	CHECK("memo: a new pass forgets", !trec_lookup_memo_get(m, 3, &k, sizeof(k), &out, sizeof(out)) &&
						  !trec_lookup_memo_get(m, 5, &small, sizeof(small), &out, sizeof(out)));

	trec_lookup_memo_put(m, 3, big_key, sizeof(big_key), &v, sizeof(v));
	trec_lookup_memo_put(m, 3, &k, sizeof(k), big_val, sizeof(big_val));
	CHECK("memo: a key or value too big is never kept",
	      !trec_lookup_memo_get(m, 3, big_key, sizeof(big_key), &out, sizeof(out)) &&
		      !trec_lookup_memo_get(m, 3, &k, sizeof(k), big_val, sizeof(big_val)) &&
		      !trec_lookup_memo_get(m, 3, &k, sizeof(k), &out, sizeof(out)));

	/* More keys than slots: what is found is right, and most are found. */
	for (uint64_t i = 0; i < n; i++) {
		struct key16 ki = { 1, i << 12 };
		uint64_t vi = i * 7 + 1;

		trec_lookup_memo_put(m, 9, &ki, sizeof(ki), &vi, sizeof(vi));
	}
	int wrong = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct key16 ki = { 1, i << 12 };

		if (trec_lookup_memo_get(m, 9, &ki, sizeof(ki), &out, sizeof(out))) {
			found++;
			wrong += out != i * 7 + 1;
		}
	}
	CHECK("memo: past its slots, every hit has its own key's value", !wrong);
	CHECK("memo: ... and the latest puts fill a good share of the slots",
	      found > TREC_LOOKUP_MEMO_SLOTS / 2 && found <= TREC_LOOKUP_MEMO_SLOTS);

	/* The pass counter wraps without old entries coming back. */
	trec_lookup_memo_put(m, 3, &k, sizeof(k), &v, sizeof(v));
	m->pass = UINT32_MAX;
	m->slots[0].pass = 1;
	trec_lookup_memo_new_pass(m);
	CHECK("memo: a wrapped pass counter forgets too",
	      m->pass == 1 && m->slots[0].pass == 0 &&
		      !trec_lookup_memo_get(m, 3, &k, sizeof(k), &out, sizeof(out)));

	trec_lookup_memo_new_pass(NULL);
	CHECK("memo: NULL (no memory) always misses",
	      !trec_lookup_memo_get(NULL, 3, &k, sizeof(k), &out, sizeof(out)));
	trec_lookup_memo_free(m);
	return failures != 0;
}
