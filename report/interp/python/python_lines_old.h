/* SPDX-License-Identifier: MIT */
/*
 * Line numbers of CPython 3.8-3.10 code: co_lnotab (3.8, 3.9; f_lasti in
 * bytes) and the 3.10 co_linetable (PEP 626; f_lasti in code units), decoded
 * the way each version's PyCode_Addr2Line does. Byte layouts: FORMAT.md §11.
 */
#ifndef TREC_PYTHON_LINES_OLD_H
#define TREC_PYTHON_LINES_OLD_H

#include <stddef.h>
#include <stdint.h>

/* 3.8/3.9: line of the instruction at byte offset lasti; lasti < 0 gives
 * firstlineno. -1 for a missing table. */
int trec_py_line_of_lnotab(const uint8_t *table, size_t len, int firstlineno, int64_t lasti);

/* 3.10: line of the code unit with index lasti; lasti < 0 gives
 * firstlineno. -1 when the instruction has no line or lies past the table. */
int trec_py_line_of_310(const uint8_t *table, size_t len, int firstlineno, int64_t lasti);

#endif /* TREC_PYTHON_LINES_OLD_H */
