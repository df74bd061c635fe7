/* SPDX-License-Identifier: MIT */
/*
 * Reading a profiled process's memory to describe its interpreted code
 * (every backend's reads), counted: trec_interp_table_trace keeps the
 * describing under a read budget, so a process that makes every frame's
 * code new (or huge) cannot make trecord read without bound.
 */
#ifndef TREC_INTERP_READ_H
#define TREC_INTERP_READ_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes at addr of the process whose pid (an int, or uint32_t)
 * ctx points to: 0, -ESRCH (it is gone) or -EFAULT. The backends' read
 * callback for live processes. */
int trec_interp_read_pid(void *ctx, uint64_t addr, void *buf, size_t len);
/* Bytes trec_interp_read_pid asked for so far, all threads. */
uint64_t trec_interp_bytes_read(void);

#endif /* TREC_INTERP_READ_H */
