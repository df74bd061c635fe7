// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the Perl INTERP_CODE payload decoder
 * (format/trec_perlcode.c): whatever it accepts must have terminated,
 * bounded strings and survive a round trip (encode, decode) unchanged.
 */
#include <stdlib.h>
#include <string.h>
#include "trec_perlcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_perlcode c, d;
	uint8_t *buf;
	size_t len;

	if (trec_perlcode_decode(data, size, &c))
		return 0;
	if (c.package[c.package_len] || c.name[c.name_len] || c.file[c.file_len] ||
	    c.file_len > TREC_PERLCODE_MAX_STR)
		abort();
	if (trec_perlcode_encode(&c, &buf, &len) || len != size || memcmp(buf, data, size) ||
	    trec_perlcode_decode(buf, len, &d) || d.key != c.key || d.line != c.line)
		abort();
	free(buf);
	return 0;
}
