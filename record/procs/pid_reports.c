// SPDX-License-Identifier: MIT
/*
 * Drains pid_events (pid_reports.h). Walking the hash map key by key cost
 * a scan of all its buckets per drain, and the syncer drained after every
 * process event: the top item of a -a recording's own CPU. Now the latch
 * says whether there is anything at all, and one batch call empties it.
 */
#include <errno.h>
#include <stdbool.h>
#include <bpf/bpf.h>
#include "record/procs/pid_reports.h"
#include "trec_types.h"

#define REPORT_BATCH 1024

/* Several threads of one process may have reported. */
static bool seen_before(const uint64_t *keys, uint32_t i)
{
	for (uint32_t j = 0; j < i; j++)
		if (keys[j] >> 32 == keys[i] >> 32)
			return true;
	return false;
}

size_t trec_pid_reports_drain(int pid_events_fd, int inhibit_fd,
			      void (*sync)(void *ctx, uint32_t pid), void *ctx)
{
	uint32_t ev = TREC_EVENT_PID_REPORT, in = 0, out = 0;
	uint64_t keys[REPORT_BATCH];
	uint32_t vals[REPORT_BATCH];
	uint8_t latched;
	size_t synced = 0;
	bool more = true;

	/* BPF adds its entry before it sets the latch: no latch, no entry
	 * (one landing now sets the latch and wakes us again). */
	if (bpf_map_lookup_elem(inhibit_fd, &ev, &latched))
		return 0;
	/* Re-armed before draining, so a report that lands during the drain
	 * wakes us again instead of being latched away. */
	bpf_map_delete_elem(inhibit_fd, &ev);
	for (int first = 1; more; first = 0) {
		uint32_t n = REPORT_BATCH;

		if (bpf_map_lookup_and_delete_batch(pid_events_fd, first ? NULL : &in, &out,
						    keys, vals, &n, NULL)) {
			/* ENOENT: the walk is done (n may be > 0). Else
			 * latch again, so the next round retries. */
			if (errno != ENOENT)
				bpf_map_update_elem(inhibit_fd, &ev, &(uint8_t){ 1 }, BPF_ANY);
			more = false;
		}
		if (n > REPORT_BATCH)
			n = 0;
		for (uint32_t i = 0; i < n; i++)
			if (!seen_before(keys, i)) {
				sync(ctx, (uint32_t)(keys[i] >> 32));
				synced++;
			}
		in = out;
	}
	return synced;
}
