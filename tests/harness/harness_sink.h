/* SPDX-License-Identifier: MIT */
/*
 * What the harness languages (Python, Perl, Ruby) give trecord's
 * interpreter tables as their sink (record/interp/interp_table.h) where
 * they are alike: ranges go into the env's py_ranges, as interpreter_offsets
 * would hold them, and nothing is deleted. ctx is the language's state,
 * which starts with its struct harness_env *.
 */
#ifndef TREC_HARNESS_SINK_H
#define TREC_HARNESS_SINK_H

#include <stdint.h>
#include "harness.h"

int harness_sink_set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r);
void harness_sink_del_proc(void *ctx, uint32_t pid);

#endif /* TREC_HARNESS_SINK_H */
