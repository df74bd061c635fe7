/* SPDX-License-Identifier: MIT */
/* CHECK(name, cond): one "PASS: name" / "FAIL: name" line (tests/run.sh). */
#ifndef TREC_UNIT_CHECK_H
#define TREC_UNIT_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(name, cond)                                                                          \
	do {                                                                                       \
		if (cond)                                                                          \
			printf("PASS: %s\n", name);                                                \
		else {                                                                             \
			printf("FAIL: %s (%s:%d)\n", name, __FILE__, __LINE__);                    \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif /* TREC_UNIT_CHECK_H */
