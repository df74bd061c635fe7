/* SPDX-License-Identifier: MIT */
/*
 * Finding a Zend engine (PHP 8) in an ELF file: the php binary or
 * libphp.so. The engine's own dynamic symbols give where its globals and
 * its VM loop are (executor_globals, execute_ex); its module API id
 * ("API20220829,NTS", what extensions are checked against) says which
 * struct layout it has, from a per-API table (php_layouts.c).
 */
#ifndef TREC_PHP_DETECT_H
#define TREC_PHP_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "php_types.h"
#include "trec_types.h"

/* Struct offsets of one Zend module API (a PHP minor version). */
struct trec_php_layout {
	uint32_t api; /* ZEND_MODULE_API_NO, e.g. 20220829 */
	uint8_t major, minor;
	uint16_t eg_current_execute_data;
	uint16_t ed_opline, ed_func, ed_call_info, ed_prev;
	uint16_t fn_name, fn_scope;
	uint16_t op_last, op_opcodes, op_filename, op_line_start, op_line_end;
	uint16_t op_size, op_lineno;
	uint16_t str_len, str_val;  /* zend_string */
	uint16_t class_name;        /* zend_class_entry.name */
};

/* The layout of a module API, or NULL when not in the table. */
const struct trec_php_layout *trec_php_layout_of(uint32_t api);

/* What detection found in a file: ELF vaddrs and the layout. */
struct trec_php_engine {
	const struct trec_php_layout *layout;
	uint64_t executor_globals;
	uint64_t loop_start, loop_end; /* execute_ex */
	uint64_t cold_start, cold_end; /* its .cold part (GCC's split), or 0 */
};

/*
 * 0 with *out filled; -ENOENT: not a Zend engine; another negative errno
 * (-ENOTSUP: a Zend engine we cannot unwind) with the reason in err.
 */
int trec_php_detect(const char *path, struct trec_php_engine *out, char *err, size_t errlen);

/* The interpreter_offsets value for the engine's file. */
void trec_php_offset_range(const struct trec_php_engine *e, struct trec_offset_range *r);
/* The php_procs value for a process that maps the engine with bias. */
void trec_php_proc_info_init(const struct trec_php_engine *e, uint64_t bias,
			     struct trec_php_proc_info *info);

#endif /* TREC_PHP_DETECT_H */
