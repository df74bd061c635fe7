// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the PYCODE payload decoder (format/trec_pycode.c)
 * and the Python line-table decoders treport runs on what it accepts
 * (report/interp/python/python_lines*.c: 3.11+ co_linetable, 3.10
 * co_linetable, 3.8/3.9 co_lnotab). Whatever the decoder accepts must have
 * terminated strings inside the input and re-encode to the same bytes; the
 * line decoders must answer any instruction index without reading outside
 * the table (ASan) and with -1 or a line.
 */
#include <stdlib.h>
#include <string.h>
#include "trec_pycode.h"
#include "report/interp/python/python_lines.h"
#include "report/interp/python/python_lines_old.h"

static void lines(const struct trec_pycode *c, int64_t lasti)
{
	const uint8_t *t = c->linetable;
	size_t n = c->linetable_len;

	(void)trec_py_line_of(t, n, c->firstlineno, lasti);
	(void)trec_py_line_of_310(t, n, c->firstlineno, lasti);
	(void)trec_py_line_of_lnotab(t, n, c->firstlineno, lasti);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_pycode c;
	uint8_t *buf;
	size_t len;

	if (trec_pycode_decode(data, size, &c))
		return 0;
	if (c.filename[c.filename_len] || c.name[c.name_len] || c.qualname[c.qualname_len] ||
	    c.linetable + c.linetable_len != data + size)
		abort();
	if (trec_pycode_encode(&c, &buf, &len) || len != size || memcmp(buf, data, size))
		abort();
	free(buf);
	/* Indexes around the table's size, its ends and the extremes; the
	 * object id (an input field) as one more. */
	const int64_t n = c.linetable_len;
	const int64_t at[] = { -1, 0, 1, 2, 7, n / 2, n - 1, n, n + 1, 2 * n, 4 * n,
			       (int64_t)c.object_id, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		lines(&c, at[i]);
	return 0;
}
