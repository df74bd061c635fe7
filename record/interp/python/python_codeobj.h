/* SPDX-License-Identifier: MIT */
/*
 * Python code objects, read from a live process: for each code object
 * address that appears in a sample, trecord reads its file name, names,
 * first line and line table once and writes a TREC_REC_PYCODE record.
 */
#ifndef TREC_PYTHON_CODEOBJ_H
#define TREC_PYTHON_CODEOBJ_H

#include <stdint.h>
#include "record/interp/interp_seen.h"
#include "record/interp/python/python_detect.h"
#include "trec_format.h"
#include "trec_pycode.h"

/* A code object description with owned strings. */
struct trec_pycode_owned {
	struct trec_pycode c; /* points at the buffers below */
	char *filename, *name, *qualname;
	uint8_t *linetable;
};

/*
 * Reads the code object at runtime address addr of pid, which runs the
 * CPython described by proc. 0; -ESRCH (process gone); -EFAULT
 * (unreadable); -EINVAL (not a code object, or a field is not the type
 * it should be); -ENOMEM.
 */
int trec_py_read_code(int pid, const struct trec_py_process *proc, uint64_t addr,
		      struct trec_pycode_owned *out);

/* Reads len bytes at addr of the process: 0, -ESRCH (gone), -EFAULT. */
typedef int (*trec_py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* trec_py_read_code with the process's memory read through read (e.g.
 * from a core dump: tests/harness/). */
int trec_py_read_code_from(trec_py_read_fn read, void *ctx, uint32_t pid,
			   const struct trec_py_process *proc, uint64_t addr,
			   struct trec_pycode_owned *out);
void trec_pycode_owned_free(struct trec_pycode_owned *c);

/* Where PYCODE records go (trecord: the locked output writer). */
typedef int (*trec_pycode_write_fn)(void *ctx, enum trec_record_type type,
				    const struct trec_blob *b);

/*
 * For a Python frame (file_id = addr, low 32 bits of addr_or_line =
 * object_id) in a sample of pid: reads and writes the PYCODE record unless
 * seen (the pid's code handled before; notes it). 1 written, 0 handled
 * before, negative errno when the object could not be described; -ESTALE
 * when the object at addr is not the one the sample saw (its id differs).
 */
int trec_pycode_note(struct trec_interp_seen *seen, trec_pycode_write_fn write, void *ctx,
		     uint32_t pid, const struct trec_py_process *proc, uint64_t addr,
		     uint32_t object_id);

#endif /* TREC_PYTHON_CODEOBJ_H */
