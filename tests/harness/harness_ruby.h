/* SPDX-License-Identifier: MIT */
/*
 * The Ruby part of a harness case: fills interpreter_offsets and
 * ruby_procs with trecord's own code (record/interp/ruby/ruby_sync.c), and
 * names the Ruby frames of the trace the way trecord and treport do
 * (INTERP_CODE records read from the process's memory, looked up by
 * report/interp/ruby/ruby_frames.c).
 */
#ifndef TREC_HARNESS_RUBY_H
#define TREC_HARNESS_RUBY_H

#include <stdbool.h>
#include "harness_case.h"
#include "report/interp/python/python_frames.h"

struct harness_rb;

struct harness_rb *harness_rb_new(struct harness_env *env);
void harness_rb_free(struct harness_rb *r);

/* Live process (pid sync's exec_mapping op). 1 when it is libruby. */
int harness_rb_on_mapping(struct harness_rb *r, uint32_t pid, uint64_t file_id,
			  const char *open_path, uint64_t bias);
/* Process gone: the same detection from the case's mapping of path. */
int harness_rb_case_mapping(struct harness_rb *r, uint32_t pid, uint64_t file_id,
			    const char *path, uint64_t bias);

/* Describes the iseqs of the trace's Ruby frames, from the live process
 * or the captured memory. Returns the number of frames left unnamed. */
int harness_rb_describe(struct harness_rb *r, uint32_t pid, const struct trec_trace *t,
			bool live);

/* A Ruby frame's label, file and line. 0 or -ENOENT. */
int harness_rb_lookup(const struct harness_rb *r, uint32_t pid, const struct trec_frame *f,
		      struct trec_pyframe_sym *sym);

/* Whether a Ruby interpreter was found (ruby_procs has an entry). */
bool harness_rb_found(const struct harness_rb *r);

#endif /* TREC_HARNESS_RUBY_H */
