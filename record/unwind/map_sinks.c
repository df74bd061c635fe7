// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "record/unwind/map_sinks.h"

static int set_unwind_info(void *ctx, uint32_t idx, const struct trec_unwind_info *ui)
{
	const struct trec_map_fds *fds = ctx;

	return bpf_map_update_elem(fds->infos, &idx, ui, BPF_ANY) ? -errno : 0;
}

/* Without the mapping: the pairs [first, first + n) touches, in batch
 * syscalls (per-element updates cost ~1 us each, libc has ~30k deltas).
 * A pair's half outside the range keeps what the map holds. */
static int set_delta_pairs(int fd, uint32_t first, const struct trec_stack_delta *d, uint32_t n)
{
	uint32_t p0 = first / 2, np = (first + n - 1) / 2 - p0 + 1, done = 0;
	struct trec_stack_delta_pair *v = calloc(np, sizeof(*v));
	uint32_t *keys = malloc((size_t)np * sizeof(*keys));
	int err = 0;

	if (!v || !keys) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < np; k++)
		keys[k] = p0 + k;
	if (((first & 1) && bpf_map_lookup_elem(fd, &keys[0], &v[0])) ||
	    (((first + n) & 1) && bpf_map_lookup_elem(fd, &keys[np - 1], &v[np - 1]))) {
		err = -errno;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		v[(first + i) / 2 - p0].d[(first + i) & 1] = d[i];
	while (done < np) {
		uint32_t count = np - done;

		if (bpf_map_update_batch(fd, keys + done, v + done, &count, NULL)) {
			err = -errno;
			break;
		}
		if (!count) {
			err = -EIO;
			break;
		}
		done += count;
	}
out:
	free(v);
	free(keys);
	return err;
}

/* Stores into the mapped array, else through set_delta_pairs(). */
static int set_deltas(void *ctx, uint32_t first, const struct trec_stack_delta *d, uint32_t n)
{
	const struct trec_map_fds *fds = ctx;

	if (first > TREC_MAX_STACK_DELTAS || n > TREC_MAX_STACK_DELTAS - first)
		return -E2BIG;
	if (!n)
		return 0;
	if (fds->deltas_mem) {
		void *to = trec_delta_mem_write_at(fds->deltas_mem, (size_t)first * sizeof(*d),
						   (size_t)n * sizeof(*d));

		if (to) {
			memcpy(to, d, (size_t)n * sizeof(*d));
			return 0;
		}
	}
	return set_delta_pairs(fds->deltas, first, d, n);
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

	int e = bpf_map_delete_elem(fds->pages, k) ? -errno : 0;

	trec_maps_changed(fds->maps_gen); /* the file's mappings go too */
	return e;
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
	int e = bpf_map_update_elem(fds->lpm, k, v, BPF_ANY) ? -errno : 0;

	trec_maps_changed(fds->maps_gen);
	return e;
}

int trec_bpf_lpm_delete(const struct trec_map_fds *fds, const struct trec_pid_page_key *k)
{
	int e = bpf_map_delete_elem(fds->lpm, k) ? -errno : 0;

	trec_maps_changed(fds->maps_gen);
	return e;
}

void trec_bpf_report_reset(const struct trec_map_fds *fds, uint32_t pid)
{
	bpf_map_delete_elem(fds->reported, &pid);
}
