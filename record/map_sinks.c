// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "map_sinks.h"

static int set_unwind_info(void *ctx, uint32_t idx, const struct trec_unwind_info *ui)
{
	const struct trec_map_fds *fds = ctx;

	return bpf_map_update_elem(fds->infos, &idx, ui, BPF_ANY) ? -errno : 0;
}

/* One batch syscall per file instead of one per delta (libc: ~100k). */
static int set_deltas(void *ctx, uint32_t first, const struct trec_stack_delta *d, uint32_t n)
{
	const struct trec_map_fds *fds = ctx;
	uint32_t *keys = malloc((size_t)n * sizeof(*keys));
	uint32_t done = 0;
	int err = 0;

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
