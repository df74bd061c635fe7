/* SPDX-License-Identifier: MIT */
/*
 * The Python part of a harness case: fills interpreter_offsets and
 * py_procs with trecord's own code, and names the Python frames of the
 * trace the way trecord and treport do (PYCODE records read from the
 * process's memory, looked up by report/interp/python/python_frames.c).
 */
#ifndef TREC_HARNESS_PYTHON_H
#define TREC_HARNESS_PYTHON_H

#include <stdbool.h>
#include "harness_case.h"
#include "report/interp/python/python_frames.h"

struct harness_py;

struct harness_py *harness_py_new(struct harness_env *env);
void harness_py_free(struct harness_py *p);

/* Live process (pid sync's exec_mapping op): trecord's trec_py_sync. */
int harness_py_on_mapping(struct harness_py *p, uint32_t pid, uint64_t file_id,
			  const char *open_path, uint64_t bias);

/* Process gone: the same detection from the case's mapping of path, with
 * libc's thread-specific data layout from the case's mapped files. */
int harness_py_case_mapping(struct harness_py *p, const struct harness_case *c,
			    uint64_t file_id, const char *path, uint64_t bias);

/* Describes the code objects of the trace's Python frames: from the live
 * process (trecord's Python table) or from the captured memory.
 * Returns the number of frames that could not be described. */
int harness_py_describe(struct harness_py *p, uint32_t pid, const struct trec_trace *t, bool live);

/* A Python frame's function, file and line. 0 or -ENOENT. */
int harness_py_lookup(const struct harness_py *p, uint32_t pid, const struct trec_frame *f,
		      struct trec_pyframe_sym *sym);

/* Whether any interpreter was found (py_procs has an entry). */
bool harness_py_found(const struct harness_py *p);

#endif /* TREC_HARNESS_PYTHON_H */
