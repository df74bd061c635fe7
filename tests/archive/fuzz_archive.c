// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the symbol-archive decoder: any bytes must parse to
 * tables that lookups can walk, or be refused with a message. Built and run
 * by test_archive_fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <string.h>

#include "format/archive/archive_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_archive *a = NULL;
	char err[256];
	if (trec_archive_parse(data, size, &a, err, sizeof(err))) {
		if (!err[0])
			__builtin_trap(); /* a refusal must say why */
		return 0;
	}
	const struct trec_arc_tables *t = trec_archive_tables(a);
	uint64_t probe[8] = { 0, 1, UINT64_MAX };
	size_t n = 3;
	if (t->num_syms) {
		probe[n++] = t->syms[0].addr;
		probe[n++] = t->syms[t->num_syms - 1].addr + t->syms[t->num_syms - 1].size / 2;
	}
	if (t->num_lines)
		probe[n++] = t->lines[t->num_lines / 2].addr;
	if (t->num_depths && t->depths[0].num)
		probe[n++] = t->depths[0].v[0].lo;
	for (size_t i = 0; i < n; i++) {
		struct trec_arc_result r;
		trec_archive_lookup(a, probe[i], &r);
		/* Every string must be a readable C string of bounded length. */
		for (unsigned k = 0; k < r.num_frames; k++)
			if ((r.frames[k].function &&
			     strlen(r.frames[k].function) > TREC_ARC_MAX_STRING) ||
			    (r.frames[k].file && strlen(r.frames[k].file) > TREC_ARC_MAX_STRING))
				__builtin_trap();
	}
	trec_archive_free(a);
	return 0;
}
