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
	__uint(map_flags, BPF_F_NO_PREALLOC); /* trecord writes it; most runs need none */
	__type(key, __u32);
	__type(value, struct trec_py_proc_info);
} py_procs SEC(".maps");

/* 3.8-3.10: the frame and code object copies live here, not on the BPF
 * stack, which the program shares with the inline native unwinder. */
struct trec_py_scratch {
	__u64 frame[TREC_PY_OLD_FRAME_READ / 8];
	__u64 code[TREC_PY_CODE_READ / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trec_py_scratch);
} py_scratch SEC(".maps");

#endif /* TREC_PYTHON_MAPS_H */
