/* SPDX-License-Identifier: MIT */
/*
 * BPF maps of the Python unwinder. Included by bpf/trec.bpf.c after
 * trec_maps.h; the map name is the contract with trecord.
 */
#ifndef TREC_PYTHON_MAPS_H
#define TREC_PYTHON_MAPS_H

#include "python_types.h"

/* tgid -> offsets of the CPython it runs (record/interp/python/python_detect.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct trec_py_proc_info);
} py_procs SEC(".maps");

#endif /* TREC_PYTHON_MAPS_H */
