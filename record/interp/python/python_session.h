/* SPDX-License-Identifier: MIT */
/*
 * Python as a trecord interpreter backend (record/interp/interp.h):
 * python_sync.c bound to the BPF maps (py_procs, interpreter_offsets),
 * the output and the counters.
 */
#ifndef TREC_PYTHON_SESSION_H
#define TREC_PYTHON_SESSION_H

#include "record/interp/interp.h"

extern const struct trec_interp_ops trec_python_interp;

#endif /* TREC_PYTHON_SESSION_H */
