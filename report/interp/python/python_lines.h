/* SPDX-License-Identifier: MIT */
/*
 * Line numbers of Python code: the CPython 3.11+ location table
 * (co_linetable, Objects/locations.md in CPython), decoded the way
 * PyCode_Addr2Line does it.
 */
#ifndef TREC_PYTHON_LINES_H
#define TREC_PYTHON_LINES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Line of the code unit with index lasti (as the BPF unwinder reports it).
 * lasti < 0 (a frame that has not started) gives firstlineno, like CPython.
 * Returns -1 when the instruction has no line or the table is malformed
 * or too short (the table is untrusted input).
 */
int trec_py_line_of(const uint8_t *table, size_t len, int firstlineno, int64_t lasti);

#endif /* TREC_PYTHON_LINES_H */
