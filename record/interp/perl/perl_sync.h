/* SPDX-License-Identifier: MIT */
/*
 * trecord's Perl support, independent of where its output goes (the BPF
 * maps and the recording for trecord, plain tables for the harness):
 *
 *   per executable file mapping of a pid:   trec_perl_sync_mapping()
 *   each trace, after its SAMPLE record:    trec_perl_sync_trace()
 *   exec / exit of a pid:                   its table's (interp_table.h)
 *
 * The first detects Perl in the mapped file (once per file id) and fills
 * interpreter_offsets[file id] and perl_procs[pid]; the second writes an
 * INTERP_CODE record for each (statement, sub) pair the trace names that
 * is new for its pid. Thread-safe.
 */
#ifndef TREC_PERL_SYNC_H
#define TREC_PERL_SYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "record/interp/interp_table.h"
#include "record/interp/perl/perl_code.h"
#include "trec_types.h"

struct trec_perl_sync;

struct trec_perl_sync *trec_perl_sync_new(const struct trec_interp_sink *sink, bool verbose);
void trec_perl_sync_free(struct trec_perl_sync *s);

/* As trec_interp_ops.on_mapping: 1 Perl and pid set up, 0 not, < 0 errno. */
int trec_perl_sync_mapping(struct trec_perl_sync *s, uint32_t pid, uint64_t file_id,
			   const char *open_path, uint64_t bias);
void trec_perl_sync_trace(struct trec_perl_sync *s, uint32_t pid,
			  const struct trec_frame *frames, uint32_t n);
/* Its table of files and pids (exec, exit, counters). */
struct trec_interp_table *trec_perl_sync_table(struct trec_perl_sync *s);

#endif /* TREC_PERL_SYNC_H */
