/* SPDX-License-Identifier: MIT */
/*
 * trecord's Ruby support, an interpreter table (interp_table.h): per
 * executable mapping, detect libruby (once per file) and set the pid up
 * (interpreter_offsets[file], ruby_procs[pid]); per trace, describe each
 * new iseq in an INTERP_CODE record. The BPF map writes and the record
 * output go through its sink, so the offline harness runs the same code.
 * Thread-safe.
 */
#ifndef TREC_RUBY_SYNC_H
#define TREC_RUBY_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "record/interp/interp_table.h"
#include "record/interp/ruby/ruby_iseq.h"
#include "trec_format.h"
#include "trec_types.h"

/* trecord's Ruby table: its files are struct trec_rb_offsets. */
struct trec_interp_table *trec_rb_table_new(const struct trec_interp_sink *sink, bool verbose);

/* trec_interp_table_trace() reading the process through read(ctx) (NULL:
 * the live process). */
void trec_rb_table_trace(struct trec_interp_table *t, uint32_t pid,
			 const struct trec_frame *frames, uint32_t n, trec_rb_read_fn read, void *ctx);

/* Sets pid up from offsets detected elsewhere (the harness's core dump). */
int trec_rb_table_add_pid(struct trec_interp_table *t, uint32_t pid, uint64_t file_id,
			  const struct trec_rb_offsets *o, uint64_t bias);

#endif /* TREC_RUBY_SYNC_H */
