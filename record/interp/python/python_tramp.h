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
/*
 * The longest copy period we look for. 3.13's perf_trampoline.c spaces
 * copies round_up(len + code_padding, 16) apart, and -X perf_jit sets
 * code_padding to 256 after the first arena was filled: that arena has
 * period 16, every later one 272 (for the 11-byte template).
 */
#define TREC_PY_TRAMP_MAX_PERIOD 512
/* Arenas probed in one mapping at most (256 MiB; ~1 M code objects). */
#define TREC_PY_TRAMP_MAX_ARENAS 4096
/* Bytes read from an arena's start: the template at 0, P and 2P. */
#define TREC_PY_TRAMP_PROBE (2 * TREC_PY_TRAMP_MAX_PERIOD + TREC_PY_TRAMP_MAX)

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
 * smallest P >= len with the template at P and 2P, P at most
 * TREC_PY_TRAMP_MAX_PERIOD (3.12: the template's length; 3.13: rounded up
 * to 16; 3.13 -X perf_jit: 272 after the first arena). 0 if the bytes are
 * no arena.
 */
size_t trec_py_tramp_period(const uint8_t *mem, size_t n, const uint8_t *tmpl, size_t len);

/*
 * One period for deltas valid in arenas of period a and of period b (0:
 * none yet, then b): their gcd, whose copies' offsets hold every copy of
 * both (a 272-period arena's copies are at multiples of 16; rules for
 * the copies in between describe padding that is never run). 0 when the
 * gcd is shorter than the template (copies would overlap).
 */
size_t trec_py_tramp_merge_period(size_t a, size_t b, size_t len);

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
