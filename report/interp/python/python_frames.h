/* SPDX-License-Identifier: MIT */
/*
 * Python frame symbolization for treport: a store of the recording's
 * PYCODE blobs, and the lookup that turns a TREC_FRAME_PYTHON frame
 * (code object address + instruction index + object id) into a function,
 * file and line.
 */
#ifndef TREC_PYTHON_FRAMES_H
#define TREC_PYTHON_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include "trec_format.h"
#include "report/interp/interp.h"

struct trec_pyframes;

struct trec_pyframes *trec_pyframes_new(void);
void trec_pyframes_free(struct trec_pyframes *s);

/* Adds a TREC_REC_PYCODE blob (copied). 0; -EBADMSG for a malformed or
 * unknown-subtype payload (warn and go on); -ENOMEM. */
int trec_pyframes_add(struct trec_pyframes *s, const struct trec_blob *b);

struct trec_pyframe_sym {
	const char *function; /* co_qualname (co_name if empty) */
	const char *file;     /* co_filename as the interpreter had it */
	int line;             /* -1: unknown */
};

/* Symbolizes a Python frame of a sample of pid. Strings stay valid until
 * trec_pyframes_free. 0, or -ENOENT when no description matches (s may be
 * NULL: a recording without PYCODE records). */
int trec_pyframes_lookup(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, struct trec_pyframe_sym *out);

/* "function (file.py:line)" (file basename, "?" for an unknown line), or
 * "[python 0x...]" when the code object is unknown. Returns the
 * length snprintf would have written. */
int trec_pyframes_format(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, char *buf, size_t len);

/* Python as a treport interpreter backend (report/interp/interp.h). */
extern const struct rp_interp_ops rp_python_interp;

#endif /* TREC_PYTHON_FRAMES_H */
