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

/* A Python frame of the reference stack (the script's own frame objects). */
struct harness_pyframe {
	char *qualname, *file;
	int line;
	int entry; /* a C-level call of the eval loop starts at this frame */
};

struct harness_case {
	uint32_t pid, tid;
	struct harness_regs regs;
	struct harness_map *maps; /* executable; path "" for anonymous memory */
	size_t num_maps;
	struct harness_mem *mem;
	size_t num_mem;
	struct harness_frame *frames; /* gdb's physical frames */
	size_t num_frames;
	int gdb_stop, gdb_outermost;
	/* Functions the unwinder may stop in with an error (no CFI there). */
	char **stop_in;
	size_t num_stop_in;
	/* A core dump of the process: registers (the tid's NT_PRSTATUS) and
	 * memory (its PT_LOAD segments, after the case's own mem ranges). */
	char *core;
	/* The Python stack the process saw itself, innermost first. */
	struct harness_pyframe *pyframes;
	size_t num_pyframes;
};

int harness_case_read(const char *path, struct harness_case *c);
void harness_case_free(struct harness_case *c);

/* Appends the core's PT_LOAD segments to c->mem and sets c->regs from the
 * NT_PRSTATUS of c->tid (harness_core.c). 0 or negative errno. */
int harness_core_load(struct harness_case *c);

#endif /* TREC_HARNESS_CASE_H */
