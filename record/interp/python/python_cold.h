/* SPDX-License-Identifier: MIT */
/*
 * Finds the .cold part of a function in a stripped binary. GCC moves the
 * unlikely blocks of a hot/cold-split function into a separate range with
 * its own FDE but, once stripped, no symbol; the hot part jumps into it.
 * We count the hot part's jump targets per FDE and take the FDE that most
 * of them land in the middle of.
 */
#ifndef TREC_PYTHON_COLD_H
#define TREC_PYTHON_COLD_H

#include <stdint.h>
#include "record/interp/python/python_elf.h"

/* Sets [*start, *end) (ELF vaddrs) and returns 0, or -ENOENT. */
int trec_py_find_cold(struct trec_pyelf *e, uint64_t hot_start, uint64_t hot_end,
		      uint64_t *start, uint64_t *end);

#endif /* TREC_PYTHON_COLD_H */
