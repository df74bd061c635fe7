/* SPDX-License-Identifier: MIT */
/*
 * BPF maps of the Perl unwinder. Included by bpf/perl_unwind.h after
 * trec_maps.h; the map name is the contract with trecord.
 */
#ifndef TREC_PERL_MAPS_H
#define TREC_PERL_MAPS_H

#include "perl_types.h"

/* tgid -> offsets of the Perl it runs (record/interp/perl/perl_detect.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* trecord writes it; most runs need none */
	__type(key, __u32);
	__type(value, struct trec_perl_proc_info);
} perl_procs SEC(".maps");

#endif /* TREC_PERL_MAPS_H */
