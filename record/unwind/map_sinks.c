// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "record/unwind/map_sinks.h"

static int set_unwind_info(void *ctx, uint32_t idx, const struct trec_unwind_info *ui)
{
	const struct trec_map_fds *fds = ctx;

	return bpf_map_update_elem(fds->infos, &idx, ui, BPF_ANY) ? -errno : 0;
}

/* The kernel rounds array elements up to 8 bytes, in memory and mmap. */
#define DELTAS_BYTES ((size_t)TREC_MAX_STACK_DELTAS * TREC_DELTA_MMAP_STRIDE)

void trec_map_fds_mmap_deltas(struct trec_map_fds *fds)
{
	void *p = mmap(NULL, DELTAS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fds->deltas, 0);

	fds->deltas_mem = p == MAP_FAILED ? NULL : p;
}

void trec_map_fds_unmap_deltas(struct trec_map_fds *fds)
{
	if (fds->deltas_mem)
		munmap(fds->deltas_mem, DELTAS_BYTES);
	fds->deltas_mem = NULL;
}

/* Stores into the mapped array; else one batch syscall per file
 * (per-element updates cost ~1 us each, libc has ~30k deltas). */
static int set_deltas(void *ctx, uint32_t first, const struct trec_stack_delta *d, uint32_t n)
{
	const struct trec_map_fds *fds = ctx;
	uint32_t *keys, done = 0;
	int err = 0;

	if (first > TREC_MAX_STACK_DELTAS || n > TREC_MAX_STACK_DELTAS - first)
		return -E2BIG;
	if (fds->deltas_mem) {
		uint8_t *base = (uint8_t *)fds->deltas_mem + (size_t)first * TREC_DELTA_MMAP_STRIDE;

		for (uint32_t i = 0; i < n; i++)
			memcpy(base + (size_t)i * TREC_DELTA_MMAP_STRIDE, &d[i], sizeof(d[i]));
		return 0;
	}
	keys = malloc((size_t)n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		keys[i] = first + i;
	while (done < n) {
		uint32_t count = n - done;

		if (bpf_map_update_batch(fds->deltas, keys + done, d + done, &count, NULL)) {
			err = -errno;
			break;
		}
		if (!count) {
			err = -EIO;
			break;
		}
		done += count;
	}
	free(keys);
	return err;
}

static int set_page(void *ctx, const struct trec_delta_page_key *k,
		    const struct trec_delta_page_value *v)
{
	const struct trec_map_fds *fds = ctx;

	return bpf_map_update_elem(fds->pages, k, v, BPF_ANY) ? -errno : 0;
}

static int delete_page(void *ctx, const struct trec_delta_page_key *k)
{
	const struct trec_map_fds *fds = ctx;

	return bpf_map_delete_elem(fds->pages, k) ? -errno : 0;
}

const struct trec_delta_sink_ops trec_bpf_delta_sink = {
	.set_unwind_info = set_unwind_info,
	.set_deltas = set_deltas,
	.set_page = set_page,
	.delete_page = delete_page,
};

int trec_bpf_lpm_update(const struct trec_map_fds *fds, const struct trec_pid_page_key *k,
			const struct trec_pid_page_value *v)
{
	return bpf_map_update_elem(fds->lpm, k, v, BPF_ANY) ? -errno : 0;
}

int trec_bpf_lpm_delete(const struct trec_map_fds *fds, const struct trec_pid_page_key *k)
{
	return bpf_map_delete_elem(fds->lpm, k) ? -errno : 0;
}

void trec_bpf_report_reset(const struct trec_map_fds *fds, uint32_t pid)
{
	bpf_map_delete_elem(fds->reported, &pid);
}
