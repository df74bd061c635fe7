// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the jitdump parser (record/jit/jitdump.c). The
 * first input byte picks a mode: bit 0 applies a filter made of the next
 * 64 bytes read as pcs. The rest is the file. Every table must satisfy
 * fuzz_jit.h's rules and survive JITSYMS encoding; a refused file must say
 * why.
 */
#include <errno.h>

#include "record/jit/jitdump.h"
#include "fuzz_jit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_jit_table t;
	uint64_t pcs[8];
	struct trec_jit_filter f = { pcs, 0 };
	uint8_t mode = size ? data[0] : 0;
	int err;

	if (size) {
		data++;
		size--;
	}
	if (mode & 1) {
		f.n = fuzz_jit_pcs(data, size < 64 ? size : 64, pcs);
		data += size < 64 ? size : 64;
		size -= size < 64 ? size : 64;
	}
	trec_jit_table_init(&t, &fuzz_jit_limits);
	err = trec_jitdump_parse_mem(data, size, mode & 1 ? &f : NULL, &t);
	if (err == -EINVAL && !t.why[0])
		abort();
	if (!err)
		fuzz_jit_emit(&t);
	trec_jit_table_free(&t);
	return 0;
}
