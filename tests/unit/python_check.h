/* SPDX-License-Identifier: MIT */
/* PASS/FAIL lines for the Python unit tests (see tests/run.sh). */
#ifndef TREC_PYTHON_CHECK_H
#define TREC_PYTHON_CHECK_H

#include <stdio.h>

static int failures;

/* Prints "PASS: msg" or "FAIL: msg" and counts failures. */
#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		int ok_ = (cond);                                               \
		printf(ok_ ? "PASS: " : "FAIL: ");                             \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
		failures += !ok_;                                               \
	} while (0)

#endif /* TREC_PYTHON_CHECK_H */
