/* SPDX-License-Identifier: MIT */
/*
 * trecord's Ruby support: per executable mapping, detect libruby (once per
 * file) and set the pid up (interpreter_offsets[file], ruby_procs[pid]);
 * per trace, describe each new iseq in an INTERP_CODE record. The BPF map
 * writes and the record output go through ops, so the offline harness runs
 * the same code. Thread-safe.
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

struct trec_rb_sync;

struct trec_rb_sync *trec_rb_sync_new(const struct trec_interp_sink *sink, bool verbose);
void trec_rb_sync_free(struct trec_rb_sync *s);

/* 1 when the mapping is a supported libruby and pid is set up, 0 when
 * not, a negative errno on failure. */
int trec_rb_sync_mapping(struct trec_rb_sync *s, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias);

/* Describes the trace's new Ruby iseqs, reading through read(ctx) (NULL:
 * the live process). */
void trec_rb_sync_trace(struct trec_rb_sync *s, uint32_t pid, const struct trec_frame *frames,
			uint32_t n, trec_rb_read_fn read, void *ctx);

/* Sets pid up from offsets detected elsewhere (the harness's core dump). */
int trec_rb_sync_add_pid(struct trec_rb_sync *s, uint32_t pid, uint64_t file_id,
			 const struct trec_rb_offsets *o, uint64_t bias);

/* Its table of files and pids (exec, exit, counters). */
struct trec_interp_table *trec_rb_sync_table(struct trec_rb_sync *s);

#endif /* TREC_RUBY_SYNC_H */
