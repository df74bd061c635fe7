/* SPDX-License-Identifier: MIT */
/* File-backed mappings of a process, for CPython and libc discovery. */
#ifndef TREC_PYTHON_PROCMAPS_H
#define TREC_PYTHON_PROCMAPS_H

#include <stdint.h>

struct trec_py_mapping {
	uint64_t start, end, pgoff;
	int exec;
	const char *path; /* as in /proc/PID/maps, absolute */
};

/* Calls cb for each mapping with an absolute path, in address order, until
 * cb returns non-zero (which is returned). 0 at the end, negative errno if
 * the maps file cannot be read. */
int trec_py_for_each_mapping(int pid, int (*cb)(void *ctx, const struct trec_py_mapping *m),
			     void *ctx);

/* "/proc/PID/root" + path: the file as the process sees it. */
void trec_py_proc_path(int pid, const char *path, char *buf, unsigned long len);

#endif /* TREC_PYTHON_PROCMAPS_H */
