// SPDX-License-Identifier: MIT
/* Per-pid state: its trie entries applied, the last snapshot kept for
 * forks, the exit grace period and removal; pid_sync's life cycle. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/procs/pid_sync_internal.h"

struct trec_pid_sync *trec_pid_sync_new(const struct trec_pid_sync_ops *ops, void *ctx,
					bool verbose)
{
	struct trec_pid_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->verbose = verbose;
	s->vdso_fd = -1;
	s->files = trec_file_cache_new();
	if (!s->files) {
		trec_pid_sync_free(s);
		return NULL;
	}
	return s;
}

/* Writes the entries that are new or changed, then removes the stale
 * ones: the old and new ranges overlap, so the pid never has a hole. */
void pid_state_apply_entries(struct trec_pid_sync *s, struct pid_state *old,
			  const struct trec_lpm_entry *nw, size_t n)
{
	size_t i = 0, j = 0;

	for (i = 0; i < n; i++) {
		while (j < old->num_ents && trec_lpm_key_cmp(&old->ents[j].k, &nw[i].k) < 0)
			j++;
		if (j < old->num_ents && !trec_lpm_key_cmp(&old->ents[j].k, &nw[i].k) &&
		    !memcmp(&old->ents[j].v, &nw[i].v, sizeof(nw[i].v)))
			continue;
		if (s->ops->lpm_update(s->ctx, &nw[i].k, &nw[i].v))
			s->stats.lpm_failures++;
	}
	for (i = 0, j = 0; j < old->num_ents; j++) {
		while (i < n && trec_lpm_key_cmp(&nw[i].k, &old->ents[j].k) < 0)
			i++;
		if (i < n && !trec_lpm_key_cmp(&nw[i].k, &old->ents[j].k))
			continue;
		s->ops->lpm_delete(s->ctx, &old->ents[j].k);
	}
}

void pid_state_write_marker(struct trec_pid_sync *s, uint32_t pid, const uint64_t image[2])
{
	struct trec_pid_page_key k;
	struct trec_pid_page_value v = { image[0], image[1] };

	trec_lpm_key(&k, pid, 0, 64);
	if (s->ops->lpm_update(s->ctx, &k, &v))
		s->stats.lpm_failures++;
}

bool pid_state_sigs_equal(const struct pid_state *ps, const struct map_sig *sigs, size_t n)
{
	return ps->num_sigs == n && (!n || !memcmp(ps->sigs, sigs, n * sizeof(*sigs)));
}

/* Mappings then their paths, in one allocation shared by a process and
 * the children forked from it (the sync thread's alone: no atomics). */
struct pid_snap {
	unsigned refs;
	struct trec_mapping v[];
};

static void snap_release(struct pid_state *ps)
{
	if (ps->snap_block && !--ps->snap_block->refs)
		free(ps->snap_block);
	ps->snap_block = NULL;
	ps->snap = NULL;
	ps->num_snap = 0;
}

static void free_pid_state(struct pid_state *ps)
{
	if (!ps)
		return;
	free(ps->ents);
	free(ps->sigs);
	snap_release(ps);
	free(ps);
}

/* Keeps a copy of the snapshot just written; on -ENOMEM the old one stays
 * (a fork then copies a stale snapshot, which the child's own resync
 * corrects). */
int pid_state_keep_snapshot(struct pid_state *ps, const struct trec_mapping *v, size_t n)
{
	size_t len = 0, off = 0;
	struct pid_snap *b;
	char *paths;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i].path) + 1;
	b = malloc(sizeof(*b) + n * sizeof(b->v[0]) + len);
	if (!b)
		return -ENOMEM;
	b->refs = 1;
	paths = (char *)&b->v[n];
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i].path) + 1;

		b->v[i] = v[i];
		b->v[i].path = memcpy(paths + off, v[i].path, l);
		off += l;
	}
	snap_release(ps);
	ps->snap_block = b;
	ps->snap = b->v;
	ps->num_snap = n;
	return 0;
}

void pid_state_share_snapshot(struct pid_state *child, const struct pid_state *parent)
{
	if (child->snap_block == parent->snap_block)
		return;
	snap_release(child);
	if (!parent->snap_block)
		return;
	parent->snap_block->refs++;
	child->snap_block = parent->snap_block;
	child->snap = parent->snap;
	child->num_snap = parent->num_snap;
}

/* The pid's state, created empty if it has none; NULL on -ENOMEM. */
struct pid_state *pid_state_get(struct trec_pid_sync *s, uint32_t pid)
{
	bool created;

	return pid_sync_get_or_new(&s->pids, pid, sizeof(struct pid_state), &created);
}

/* Replaces ps's entries and signatures (taking ownership of both). */
void pid_state_set_entries(struct trec_pid_sync *s, struct pid_state *ps, struct trec_lpm_entry *ents,
			size_t num_ents, struct map_sig *sigs, size_t num_sigs)
{
	s->stats.lpm_entries += num_ents;
	s->stats.lpm_entries -= ps->num_ents;
	free(ps->ents);
	free(ps->sigs);
	ps->ents = ents;
	ps->num_ents = num_ents;
	ps->sigs = sigs;
	ps->num_sigs = num_sigs;
}

void trec_pid_sync_remove(struct trec_pid_sync *s, uint32_t pid)
{
	struct pid_state *ps = trec_u64map_del(&s->pids, pid);
	struct trec_pid_page_key k;

	if (!ps)
		return;
	trec_lpm_key(&k, pid, 0, 64);
	s->ops->lpm_delete(s->ctx, &k);
	for (size_t i = 0; i < ps->num_ents; i++)
		s->ops->lpm_delete(s->ctx, &ps->ents[i].k);
	s->stats.lpm_entries -= ps->num_ents;
	free_pid_state(ps);
}

void trec_pid_sync_exited(struct trec_pid_sync *s, uint32_t pid)
{
	struct pid_state *ps = trec_u64map_get(&s->pids, pid);
	uint64_t now = s->ops->now_ns(s->ctx);

	if (!ps)
		return;
	ps->exited_ns = now ? now : 1;
	if (trec_exit_fifo_push(&s->exited, pid, now))
		trec_pid_sync_remove(s, pid);
}

void trec_pid_sync_hold_exited(struct trec_pid_sync *s, bool hold)
{
	s->exit_grace_ns = hold ? TREC_EXIT_HOLD_NS : TREC_EXIT_GRACE_NS;
}

/* No process has pid any more (a zombie still has it). */
static bool pid_gone(uint64_t pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* The end of a recording: every tracked pid that no longer exists goes,
 * whatever its last sync (one that raced its exit, reading the maps of
 * the process tearing down, kept it past its reap until a sweep). */
static void remove_gone(struct trec_pid_sync *s)
{
	uint32_t gone[256];
	size_t n;

	do {
		uint64_t pid;
		void *v;

		n = 0;
		for (size_t i = 0; n < 256 && trec_u64map_next(&s->pids, &i, &pid, &v);)
			if (pid_gone(pid))
				gone[n++] = (uint32_t)pid;
		for (size_t i = 0; i < n; i++)
			trec_pid_sync_remove(s, gone[i]);
	} while (n == 256);
}

void trec_pid_sync_reap(struct trec_pid_sync *s, bool all)
{
	uint64_t now = s->ops->now_ns(s->ctx);
	uint64_t grace = s->exit_grace_ns ? s->exit_grace_ns : TREC_EXIT_GRACE_NS;
	uint64_t before = all ? UINT64_MAX : now - grace;
	struct trec_exit_ent e;

	if (!all && now < grace)
		return;
	while (trec_exit_fifo_pop_due(&s->exited, before, &e)) {
		const struct pid_state *ps = trec_u64map_get(&s->pids, e.pid);

		/* Synced after its exit: the pid is a new process (or the old
		 * one still tearing down, which the sweep will find gone). */
		if (ps && (all || ps->synced_ns <= e.time_ns))
			trec_pid_sync_remove(s, e.pid);
	}
	if (all)
		remove_gone(s);
}

/*
 * A pid found gone whose exit was not seen starts its grace period now,
 * like an exit event: samples taken before it died may still be walked
 * (deferred), and need its entries. One already in its grace period is
 * left to the reap, unless it outlived it (a sync after the exit kept it).
 */
void trec_pid_sync_sweep(struct trec_pid_sync *s)
{
	uint64_t now = s->ops->now_ns(s->ctx);
	uint64_t grace = s->exit_grace_ns ? s->exit_grace_ns : TREC_EXIT_GRACE_NS;
	uint32_t dead[256], gone[256];
	size_t nd = 0, ng = 0;
	uint64_t pid;
	void *v;

	for (size_t i = 0; nd < 256 && ng < 256 && trec_u64map_next(&s->pids, &i, &pid, &v);) {
		const struct pid_state *ps = v;

		if (!pid_gone(pid))
			continue;
		if (!ps->exited_ns || ps->synced_ns > ps->exited_ns)
			gone[ng++] = pid;
		else if (now - ps->exited_ns >= grace)
			dead[nd++] = pid;
	}
	for (size_t i = 0; i < ng; i++)
		trec_pid_sync_exited(s, gone[i]);
	for (size_t i = 0; i < nd; i++)
		trec_pid_sync_remove(s, dead[i]);
}

bool trec_pid_sync_known(const struct trec_pid_sync *s, uint32_t pid)
{
	return trec_u64map_get(&s->pids, pid) != NULL;
}

void trec_pid_sync_get_stats(const struct trec_pid_sync *s, struct trec_pid_sync_stats *st)
{
	*st = s->stats;
	st->pids = s->pids.n;
}

void trec_pid_sync_free(struct trec_pid_sync *s)
{
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; trec_u64map_next(&s->pids, &i, &k, &v);)
		free_pid_state(v);
	trec_u64map_free(&s->pids);
	for (size_t i = 0; trec_u64map_next(&s->fstates, &i, &k, &v);) {
		pid_sync_close_kept(s, v);
		free(v);
	}
	trec_u64map_free(&s->fstates);
	trec_exit_fifo_free(&s->exited);
	trec_file_cache_free(s->files);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s);
}
