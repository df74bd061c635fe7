/* SPDX-License-Identifier: MIT */
/* Shared by the archive unit tests: the test workloads and their archives. */
#ifndef TREC_ARCHIVE_TESTLIB_H
#define TREC_ARCHIVE_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

#include "record/archive/archive.h"

/* build/workloads/<name> under $TREC_ROOT (tests run from the root). */
static inline const char *workload(const char *name)
{
	static char buf[4096];
	const char *root = getenv("TREC_ROOT");
	snprintf(buf, sizeof(buf), "%s/build/workloads/%s", root ? root : ".", name);
	return buf;
}

/* Builds the workloads (make keeps this cheap) and unbuffers stdout so the
 * PASS/FAIL lines survive a sanitizer abort. 0 or -1. */
static inline int archive_test_setup(void)
{
	const char *root = getenv("TREC_ROOT");
	char cmd[8192];
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(cmd, sizeof(cmd), "make -s -C %s/tests/workloads OUT=%s/build/workloads >/dev/null",
		 root ? root : ".", root ? root : "$PWD");
	if (system(cmd)) {
		printf("FAIL: archive test workloads build\n");
		return -1;
	}
	return 0;
}

/* The archive of a workload at a level; NULL on failure. */
static inline uint8_t *workload_archive(const char *name, int level, size_t *len)
{
	uint8_t *out = NULL;
	return trec_archive_build(workload(name), NULL, 0, level, &out, len, NULL) ? NULL : out;
}

#endif /* TREC_ARCHIVE_TESTLIB_H */
