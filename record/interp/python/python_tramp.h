/* SPDX-License-Identifier: MIT */
/*
 * CPython 3.12+ perf trampolines (-X perf): libpython copies a tiny
 * template (_Py_trampoline_func_start.._end) back to back into 64 KiB
 * anonymous executable arenas, one copy per code object, and calls every
 * Python function's eval loop through its copy. The template keeps no
 * frame pointer in 3.12/3.13 (sub $8,%rsp; call *%rcx; add $8,%rsp; ret),
 * so the frame-pointer unwinder cannot pass it. These arenas get stack
 * deltas of their own: the template's rules, decoded from its bytes,
 * repeated with the copy period, under a synthetic file id.
 */
#ifndef TREC_PYTHON_TRAMP_H
#define TREC_PYTHON_TRAMP_H

#include <stddef.h>
#include <stdint.h>
#include "record/unwind/unwind_tables.h"

#define TREC_PY_TRAMP_MAX 32            /* template bytes we accept */
#define TREC_PY_TRAMP_ARENA (16 * 4096) /* perf_trampoline.c's arena size */

/* One rule of the template, from offset on. */
struct trec_py_tramp_row {
	uint8_t offset;
	struct trec_unwind_info info;
};

/*
 * The template's unwind rules, decoded from its bytes by following rsp
 * and rbp through the few instructions a trampoline uses (endbr64, nop,
 * push/pop %rbp, mov %rsp,%rbp, add/sub $imm8,%rsp, call *%reg, ret);
 * anything else: -ENOTSUP. rows holds len entries at most. Returns the
 * number of rows.
 */
int trec_py_tramp_rules(const uint8_t *tmpl, size_t len, struct trec_py_tramp_row *rows);

/*
 * The copy period of an arena whose first bytes (the process's memory)
 * are mem[0, n): the template must be at offset 0, and the period is the
 * smallest P >= len with the template at P and 2P (3.12: the template's
 * length; 3.13: rounded up to 16). 0 if the bytes are no arena.
 */
size_t trec_py_tramp_period(const uint8_t *mem, size_t n, const uint8_t *tmpl, size_t len);

/* Reads the first bytes of the arena at addr in pid and returns its period
 * (0: not an arena, or unreadable). */
size_t trec_py_tramp_probe(uint32_t pid, uint64_t addr, const uint8_t *tmpl, size_t len);

/* The synthetic file id of arenas of this template and period. */
uint64_t trec_py_tramp_file_id(const uint8_t *tmpl, size_t len, size_t period);

/* Deltas of one arena (offsets from its start): the rows repeated every
 * period for each whole copy, INVALID after the last. 0 or -errno. */
int trec_py_tramp_deltas(const struct trec_py_tramp_row *rows, size_t nrows, size_t len,
			 size_t period, struct trec_file_deltas *out);

#endif /* TREC_PYTHON_TRAMP_H */
