/* SPDX-License-Identifier: MIT */
/*
 * BPF maps of the Ruby unwinder. Included by bpf/trec.bpf.c after
 * trec_maps.h; the map name is the contract with trecord.
 */
#ifndef TREC_RUBY_MAPS_H
#define TREC_RUBY_MAPS_H

#include "ruby_types.h"

/* tgid -> offsets of the Ruby it runs (record/interp/ruby/ruby_detect.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* trecord writes it; most runs need none */
	__type(key, __u32);
	__type(value, struct trec_rb_proc_info);
} ruby_procs SEC(".maps");

#endif /* TREC_RUBY_MAPS_H */
