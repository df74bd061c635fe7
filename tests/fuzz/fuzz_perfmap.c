// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the perf map parser (record/jit/perfmap.c). The
 * first input byte picks a mode: bit 0 applies a filter made of the next
 * 64 bytes read as pcs; the other bits pick where the rest is split into
 * two feeds (lines cut across reads). Every table must satisfy
 * fuzz_jit.h's rules and survive JITSYMS encoding.
 */
#include "record/jit/perfmap.h"
#include "fuzz_jit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_perfmap_parser p;
	struct trec_jit_table t;
	uint64_t pcs[8];
	struct trec_jit_filter f = { pcs, 0 };
	uint8_t mode = size ? data[0] : 0;

	if (size) {
		data++;
		size--;
	}
	if (mode & 1) {
		f.n = fuzz_jit_pcs(data, size < 64 ? size : 64, pcs);
		data += size < 64 ? size : 64;
		size -= size < 64 ? size : 64;
	}
	size_t cut = size ? (size_t)(mode >> 1) * size / 128 : 0;

	trec_jit_table_init(&t, &fuzz_jit_limits);
	if (!trec_perfmap_init(&p, &t, mode & 1 ? &f : NULL)) {
		trec_perfmap_feed(&p, (const char *)data, cut);
		trec_perfmap_feed(&p, (const char *)data + cut, size - cut);
	}
	if (trec_perfmap_finish(&p) == 0)
		fuzz_jit_emit(&t);
	trec_jit_table_free(&t);
	return 0;
}
