// SPDX-License-Identifier: MIT
/* Map sizes by mode (record/bpf_map_sizes.c): -a keeps the full sizes,
 * a followed process tree at a modest rate gets the smaller ones, and every
 * ring size is one the kernel takes and leaves room past the deferral
 * backlog. */
#include <stdio.h>
#include "deferred_types.h"
#include "record/bpf_map_sizes.h"

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

static int ring_ok(uint32_t bytes)
{
	/* The kernel wants a power of two, a multiple of the page size. */
	return bytes >= 4096 && !(bytes & (bytes - 1)) && bytes >= 2 * TREC_DEFER_MAX_RING_BACKLOG;
}

int main(void)
{
	struct trec_map_sizes all = trec_map_sizes_for(&(struct trec_map_need){ true, 99 });
	struct trec_map_sizes cmd = trec_map_sizes_for(&(struct trec_map_need){ false, 99 });
	struct trec_map_sizes fast = trec_map_sizes_for(&(struct trec_map_need){ false, 4000 });
	struct trec_map_sizes edge = trec_map_sizes_for(&(struct trec_map_need){ false, 1000 });

	check(all.ring_bytes == 16U << 20 && all.reported_pids == 65536,
	      "-a keeps the full ring (16 MiB) and rate limiter");
	check(cmd.ring_bytes < all.ring_bytes && cmd.reported_pids < all.reported_pids,
	      "a command at 99 Hz gets smaller maps");
	check(fast.ring_bytes == all.ring_bytes, "a command at 4000 Hz keeps the full ring");
	check(edge.ring_bytes == cmd.ring_bytes, "up to 1000 Hz the smaller ring");
	check(ring_ok(all.ring_bytes) && ring_ok(cmd.ring_bytes) && ring_ok(fast.ring_bytes),
	      "ring sizes are powers of two, at least twice the deferral backlog");
	return failures != 0;
}
