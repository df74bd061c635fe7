/* SPDX-License-Identifier: MIT */
/* A captured unwinder test case (tests/harness/capture.py writes them). */
#ifndef TREC_HARNESS_CASE_H
#define TREC_HARNESS_CASE_H

#include "harness.h"

struct harness_map {
	uint64_t start, end, offset;
	char *path;
};

struct harness_frame {
	uint64_t pc; /* runtime pc: the leaf's pc, then return addresses */
	char *name;
};

struct harness_case {
	uint32_t pid, tid;
	struct harness_regs regs;
	struct harness_map *maps; /* executable, file-backed */
	size_t num_maps;
	struct harness_mem *mem;
	size_t num_mem;
	struct harness_frame *frames; /* gdb's physical frames */
	size_t num_frames;
	int gdb_stop, gdb_outermost;
	/* Functions the unwinder may stop in with an error (no CFI there). */
	char **stop_in;
	size_t num_stop_in;
};

int harness_case_read(const char *path, struct harness_case *c);
void harness_case_free(struct harness_case *c);

#endif /* TREC_HARNESS_CASE_H */
