/* SPDX-License-Identifier: MIT */
/*
 * trecord's Perl support, independent of where its output goes (the BPF
 * maps and the recording for trecord, plain tables for the harness): an
 * interpreter table (interp_table.h) whose calls
 *
 *   per executable file mapping of a pid:   trec_interp_table_mapping()
 *   each trace, after its SAMPLE record:    trec_interp_table_trace()
 *   exec / exit of a pid:                   trec_interp_table_exec/exit()
 *
 * do the Perl work. The first detects Perl in the mapped file (once per file id) and fills
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

/* Its files: struct trec_perl_file; its pids: their offsets row. */
struct trec_interp_table *trec_perl_table_new(const struct trec_interp_sink *sink, bool verbose);

#endif /* TREC_PERL_SYNC_H */
