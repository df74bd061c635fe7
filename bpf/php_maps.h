/* SPDX-License-Identifier: MIT */
/*
 * BPF maps of the PHP unwinder. Included by bpf/trec.bpf.c after
 * trec_maps.h; the map name is the contract with trecord.
 */
#ifndef TREC_PHP_MAPS_H
#define TREC_PHP_MAPS_H

#include "php_types.h"

/* tgid -> offsets of the Zend engine it runs (record/interp/php/php_detect.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* trecord writes it; most runs need none */
	__type(key, __u32);
	__type(value, struct trec_php_proc_info);
} php_procs SEC(".maps");

#endif /* TREC_PHP_MAPS_H */
