/* SPDX-License-Identifier: MIT */
/*
 * Compiles bpf/python_unwind.h as userspace C: the BPF helpers it calls
 * become reads of another process's memory (process_vm_readv) and lookups
 * in plain variables. Lets tests run the exact walker BPF runs against a
 * live, ptrace-stopped CPython.
 *
 * Include this instead of vmlinux.h/bpf_helpers.h; then include
 * trec_maps.h, python_maps.h and finally python_unwind.h.
 */
#ifndef TREC_PYTHON_BPF_SHIM_H
#define TREC_PYTHON_BPF_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "trec_types.h"
#include "python_types.h"

#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The "current task" of the shim: whose memory reads go to. */
struct py_shim {
	int pid;
	uint64_t fsbase;
	struct trec_py_proc_info info;
	uint64_t metrics[TREC_METRIC_COUNT];
	unsigned long reads, failed_reads;
};
static struct py_shim shim;

#define TREC_PY_FSBASE() (shim.fsbase)

static inline long bpf_probe_read_user(void *dst, __u32 size, const void *ptr)
{
	struct iovec l = { dst, size }, r = { (void *)ptr, size };

	shim.reads++;
	if (process_vm_readv(shim.pid, &l, 1, &r, 1, 0) == (ssize_t)size)
		return 0;
	shim.failed_reads++;
	memset(dst, 0, size);
	return -14; /* -EFAULT, like the helper */
}

/* Declared here, defined after the maps exist (SHIM_DEFINE_LOOKUP). */
static void *bpf_map_lookup_elem(void *map, const void *key);

#define SHIM_DEFINE_LOOKUP()                                                    \
	static void *bpf_map_lookup_elem(void *map, const void *key)            \
	{                                                                       \
		if (map == (void *)&py_procs)                                   \
			return *(const __u32 *)key == (__u32)shim.pid ? &shim.info \
								      : NULL;   \
		if (map == (void *)&metrics && *(const __u32 *)key < TREC_METRIC_COUNT) \
			return &shim.metrics[*(const __u32 *)key];             \
		return NULL;                                                    \
	}

#endif /* TREC_PYTHON_BPF_SHIM_H */
