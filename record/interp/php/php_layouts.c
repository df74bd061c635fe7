// SPDX-License-Identifier: MIT
/*
 * Zend struct offsets per module API. Debian ships no debug symbols for
 * PHP, and the engine exports no offsets of its own: these come from the
 * public headers (php8.2-dev), and tests/php/test_php_layout.sh compiles
 * a probe against the installed headers to check them.
 */
#include <stddef.h>
#include "record/interp/php/php_detect.h"

static const struct trec_php_layout layouts[] = {
	{
		.api = 20220829, .major = 8, .minor = 2,
		.eg_current_execute_data = 488,
		.ed_opline = 0, .ed_func = 24, .ed_call_info = 40, .ed_prev = 48,
		.fn_name = 8, .fn_scope = 16,
		.op_last = 80, .op_opcodes = 88, .op_filename = 152,
		.op_line_start = 160, .op_line_end = 164,
		.op_size = 32, .op_lineno = 24,
		.str_len = 16, .str_val = 24,
		.class_name = 8,
	},
};

const struct trec_php_layout *trec_php_layout_of(uint32_t api)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].api == api)
			return &layouts[i];
	return NULL;
}
