// SPDX-License-Identifier: MIT
/* See interp_read.h. */
#include <errno.h>
#include <stdatomic.h>
#include <sys/uio.h>
#include "record/interp/interp_read.h"

static _Atomic uint64_t bytes_read;

int trec_interp_read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(*(const int *)ctx, &local, 1, &remote, 1, 0);

	atomic_fetch_add_explicit(&bytes_read, len, memory_order_relaxed);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
}

uint64_t trec_interp_bytes_read(void)
{
	return atomic_load_explicit(&bytes_read, memory_order_relaxed);
}
