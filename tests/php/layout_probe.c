// SPDX-License-Identifier: MIT
/*
 * Compiled against the installed PHP headers (php-config --includes) and
 * record/interp/php/php_layouts.c by test_php_layout.sh: the layout
 * trecord has for this module API must be the headers' offsets.
 */
#include <stddef.h>
#include <stdio.h>
#include "php.h"
#include "zend_compile.h"
#include "zend_globals.h"
#include "record/interp/php/php_detect.h"

static int failures;

#define SAME(field, expr)                                                              \
	do {                                                                           \
		size_t want_ = (expr);                                                 \
		int ok_ = l->field == want_;                                           \
		printf("%s: php %d.%d layout: %s = %u (headers: %zu)\n", ok_ ? "PASS" : "FAIL", \
		       PHP_MAJOR_VERSION, PHP_MINOR_VERSION, #field, (unsigned)l->field, want_); \
		failures += !ok_;                                                      \
	} while (0)

int main(void)
{
	const struct trec_php_layout *l = trec_php_layout_of(ZEND_MODULE_API_NO);

	if (!l) {
		printf("FAIL: module API %d (PHP %s) is not in record/interp/php/php_layouts.c\n",
		       ZEND_MODULE_API_NO, PHP_VERSION);
		return 1;
	}
	SAME(major, PHP_MAJOR_VERSION);
	SAME(minor, PHP_MINOR_VERSION);
	SAME(eg_current_execute_data, offsetof(zend_executor_globals, current_execute_data));
	SAME(ed_opline, offsetof(zend_execute_data, opline));
	SAME(ed_func, offsetof(zend_execute_data, func));
	SAME(ed_call_info, offsetof(zend_execute_data, This.u1.type_info));
	SAME(ed_prev, offsetof(zend_execute_data, prev_execute_data));
	SAME(fn_name, offsetof(zend_function, common.function_name));
	SAME(fn_scope, offsetof(zend_function, common.scope));
	SAME(op_last, offsetof(zend_op_array, last));
	SAME(op_opcodes, offsetof(zend_op_array, opcodes));
	SAME(op_filename, offsetof(zend_op_array, filename));
	SAME(op_line_start, offsetof(zend_op_array, line_start));
	SAME(op_line_end, offsetof(zend_op_array, line_end));
	SAME(op_size, sizeof(zend_op));
	SAME(op_lineno, offsetof(zend_op, lineno));
	SAME(str_len, offsetof(zend_string, len));
	SAME(str_val, offsetof(zend_string, val));
	SAME(class_name, offsetof(zend_class_entry, name));
	/* The constants BPF uses (bpf/php_types.h). */
	printf("%s: ZEND_CALL_TOP, ZEND_USER_FUNCTION, ZEND_EVAL_CODE as in bpf/php_types.h\n",
	       ZEND_CALL_TOP == TREC_PHP_CALL_TOP && ZEND_USER_FUNCTION == TREC_PHP_USER_FUNCTION &&
	       ZEND_EVAL_CODE == TREC_PHP_EVAL_CODE && ZEND_INTERNAL_FUNCTION == 1 ? "PASS" : "FAIL");
	return failures;
}
