// SPDX-License-Identifier: MIT
/* Fork, exec and gone times of pids for NO_PID deferrals (deferred_pids.h). */
#include "record/unwind/deferred/deferred_pids.h"
#include "trec_types.h"

/* Keeps the later of the slot's time and ns. */
static void note_max(atomic_uint_fast64_t *slot, uint64_t ns)
{
	uint_fast64_t cur = atomic_load(slot);

	while (cur < ns && !atomic_compare_exchange_weak(slot, &cur, ns))
		;
}

void trec_deferred_pids_image(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns)
{
	note_max(&p->image_ns[pid % TREC_DEFERRED_PID_SLOTS], ns);
}

void trec_deferred_pids_gone(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns)
{
	note_max(&p->gone_ns[pid % TREC_DEFERRED_PID_SLOTS], ns);
}

void trec_deferred_pids_synced(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns)
{
	note_max(&p->synced_ns[pid % TREC_DEFERRED_PID_SLOTS], ns);
}

bool trec_deferred_pids_replaced_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t)
{
	return atomic_load(&p->image_ns[pid % TREC_DEFERRED_PID_SLOTS]) > t;
}

bool trec_deferred_pids_gone_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t)
{
	return atomic_load(&p->gone_ns[pid % TREC_DEFERRED_PID_SLOTS]) > t;
}

bool trec_deferred_pids_synced_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t)
{
	return atomic_load(&p->synced_ns[pid % TREC_DEFERRED_PID_SLOTS]) > t;
}

void trec_deferred_pids_event(struct trec_deferred_pids *p, const struct trec_pid_event_msg *m)
{
	if (p && (m->type == TREC_PID_EV_FORK || m->type == TREC_PID_EV_EXEC))
		trec_deferred_pids_image(p, m->pid, m->ktime_ns);
}
