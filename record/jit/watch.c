// SPDX-License-Identifier: MIT
/* JIT-like processes whose JIT file is not seen yet (watch.h). */
#include "record/jit/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/containers/u64map.h"
#include "record/jit/jitdump.h"

struct trec_jit_watch {
	struct trec_u64map pids; /* pid -> (void *)(uintptr_t)nspid */
	size_t cursor;           /* the slot the next round starts at: every pid in turn */
	uint64_t next_ns;
};

struct trec_jit_watch *trec_jit_watch_new(void)
{
	return calloc(1, sizeof(struct trec_jit_watch));
}

void trec_jit_watch_free(struct trec_jit_watch *w)
{
	if (!w)
		return;
	trec_u64map_free(&w->pids);
	free(w);
}

bool trec_jit_watch_add(struct trec_jit_watch *w, uint32_t pid, uint32_t nspid)
{
	int err = 0;

	if (!w || !pid || (w->pids.n >= TREC_JIT_WATCH_MAX && !trec_u64map_get(&w->pids, pid)))
		return false;
	/* a value must not be NULL: nspid is a pid, never 0 */
	trec_u64map_put(&w->pids, pid, (void *)(uintptr_t)(nspid ? nspid : pid), &err);
	return !err;
}

void trec_jit_watch_del(struct trec_jit_watch *w, uint32_t pid)
{
	if (w)
		trec_u64map_del(&w->pids, pid);
}

/* Whether the process's maps show its jitdump, mapped executable; -ESRCH
 * or -ENOENT if it is gone. A plain scan, not proc_maps.h's parse: only
 * the permissions and the path matter, and this runs over and over. */
static int dump_mapped(uint32_t pid, uint32_t nspid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	/* "start-end perms offset dev inode   path": the path from its first '/' */
	for (ssize_t n; !found && (n = getline(&line, &cap, f)) > 0;) {
		char *perms = strchr(line, ' '), *p = strchr(line, '/');
		long id;

		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		if (!perms || !p || strlen(perms) < 4 || perms[3] != 'x')
			continue;
		id = trec_jitdump_marker_pid(p);
		found = id >= 0 && (id == pid || id == nspid);
	}
	free(line);
	fclose(f);
	return found;
}

/* Whether /tmp/perf-NSPID.map exists in the process's root (it is read,
 * and checked, at the process's exit or the recording's end). */
static bool perfmap_exists(uint32_t pid, uint32_t nspid)
{
	char path[80];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/root/tmp/perf-%u.map", pid, nspid);
	return !stat(path, &st);
}

bool trec_jit_watch_tick(struct trec_jit_watch *w, uint64_t now_ns,
			 struct trec_jit_watch_round *r)
{
	uint32_t pid[TREC_JIT_WATCH_BATCH], nspid[TREC_JIT_WATCH_BATCH];
	size_t n = 0;
	uint64_t k;
	void *v;

	r->ndump = r->rechecked = r->found = 0;
	if (!w || !w->pids.n || now_ns < w->next_ns)
		return false;
	w->next_ns = now_ns + TREC_JIT_WATCH_TICK_NS;
	/* collected first: a deletion may move entries between slots */
	for (size_t seen = 0; n < TREC_JIT_WATCH_BATCH && seen < w->pids.n; seen++) {
		if (!trec_u64map_next(&w->pids, &w->cursor, &k, &v)) {
			w->cursor = 0;
			if (!trec_u64map_next(&w->pids, &w->cursor, &k, &v))
				break;
		}
		pid[n] = (uint32_t)k;
		nspid[n++] = (uint32_t)(uintptr_t)v;
	}
	for (size_t i = 0; i < n; i++) {
		int d = dump_mapped(pid[i], nspid[i]);
		bool pm = d == 0 && perfmap_exists(pid[i], nspid[i]);

		r->rechecked += d >= 0;
		r->found += d > 0 || pm;
		if (d > 0)
			r->dump_pids[r->ndump++] = pid[i];
		/* found, or gone; other errors (no access) are tried again */
		if (d > 0 || pm || d == -ESRCH || d == -ENOENT)
			trec_jit_watch_del(w, pid[i]);
	}
	return true;
}
