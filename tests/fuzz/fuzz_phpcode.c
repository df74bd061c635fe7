// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the PHP INTERP_CODE payload decoder
 * (format/trec_phpcode.c), which treport runs on recordings it is given:
 * whatever it accepts must have terminated strings inside the input, and
 * re-encode to the same bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "trec_phpcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_phpcode c;
	uint8_t *buf;
	size_t len;

	if (trec_phpcode_decode(data, size, &c))
		return 0;
	if (c.function[c.function_len] || c.class_name[c.class_len] || c.file[c.file_len] ||
	    (const uint8_t *)c.file + c.file_len + 1 != data + size)
		abort();
	if (trec_phpcode_encode(&c, &buf, &len) || len != size || memcmp(buf, data, size))
		abort();
	free(buf);
	return 0;
}
