// SPDX-License-Identifier: MIT
/*
 * The files that samples touched, so that trecord embeds the symbols of
 * those and only those; with level "sampled" also the addresses, so the
 * archive can keep lines only where samples landed. Both follow treport's
 * rules (symbolize_rule.h): a frame taken before trecord knew its
 * process's mappings holds a runtime pc, which treport maps through the
 * pid's mapping snapshots, so those snapshots are noted too.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "format/containers/vec.h"
#include "record/archive/archive.h"
#include "trec_format.h"
#include "trec_types.h"
#include "symbolize_rule.h"
#include "format/containers/u64map.h"
#include "upper_bound.h"

/* Addresses of one file: a set in a u64map (values are a non-NULL mark). */
struct touched_file {
	struct trec_u64map addrs;
};

/* A file mapping that some snapshot of a pid had. */
struct touched_map {
	uint64_t start, end, bias, file_id;
};

/* Absolute frames of one pid, and every file mapping its snapshots had:
 * which snapshot treport picks depends on times, so trecord keeps the
 * files of all of them (a superset is still lossless). */
struct touched_pid {
	struct trec_u64map pcs; /* lookup pcs */
	struct touched_map *maps; /* sorted by start, unique */
	size_t nmaps, capmaps;
	struct touched_map *cur;  /* the latest snapshot, what a cut keeps */
	size_t ncur, capcur;
	bool gone_once;           /* not alive at the last sweep */
};

/* Per pid, at most about this many mappings and runtime pcs are kept (a
 * process mapping code without end, a JIT): past it a sweep resolves the
 * pcs and cuts the mappings back to the latest snapshot. */
#define TOUCHED_PID_MAX 16384
#define SWEEP_BATCH 1024

struct trec_touched {
	struct trec_u64map files; /* file id -> struct touched_file */
	/* The writer thread notes absolute pcs, the sync thread mappings. */
	pthread_mutex_t lock;
	struct trec_u64map pids;  /* pid -> struct touched_pid */
	int keep_addrs;
	atomic_int oom;           /* sticky: some frame could not be noted */
	/* The file the last frame was in: a stack's frames run in few files,
	 * and a -a recording notes every frame of every sample (files are
	 * only freed with t). */
	uint64_t last_file_id;
	struct touched_file *last_file;
	/* ... and its address, noted: recursion repeats a return address
	 * frame after frame (a 150-deep one, 150 lookups of one key). */
	uint64_t last_addr;
	bool last_addr_noted;
};

struct trec_touched *trec_touched_new(int keep_addrs)
{
	struct trec_touched *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (pthread_mutex_init(&t->lock, NULL)) {
		free(t);
		return NULL;
	}
	t->keep_addrs = keep_addrs;
	return t;
}

static void free_pid(struct touched_pid *tp)
{
	trec_u64map_free(&tp->pcs);
	free(tp->maps);
	free(tp->cur);
	free(tp);
}

void trec_touched_free(struct trec_touched *t)
{
	if (!t)
		return;
	uint64_t key;
	void *val;
	for (size_t it = 0; trec_u64map_next(&t->files, &it, &key, &val);) {
		struct touched_file *tf = val;
		trec_u64map_free(&tf->addrs);
		free(tf);
	}
	trec_u64map_free(&t->files);
	for (size_t it = 0; trec_u64map_next(&t->pids, &it, &key, &val);)
		free_pid(val);
	trec_u64map_free(&t->pids);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static int put_mark(struct trec_u64map *set, uint64_t key)
{
	int err = 0;
	if (!trec_u64map_get(set, key))
		trec_u64map_put(set, key, (void *)1, &err);
	return err;
}

/* Notes file_id, and with keep_addrs the ELF address treport looks up in it. */
static int note_addr(struct trec_touched *t, uint64_t file_id, uint64_t addr)
{
	struct touched_file *tf = file_id == t->last_file_id ? t->last_file : NULL;
	int err;

	if (tf && t->last_addr_noted && addr == t->last_addr)
		return 0;
	if (!tf)
		tf = trec_u64map_get(&t->files, file_id);
	if (!tf && !(tf = trec_u64map_put_new(&t->files, file_id, calloc(1, sizeof(*tf)))))
		return -ENOMEM;
	t->last_file_id = file_id;
	t->last_file = tf;
	err = t->keep_addrs ? put_mark(&tf->addrs, addr) : 0;
	t->last_addr = addr;
	t->last_addr_noted = !err;
	return err;
}

/* Under t->lock. */
static struct touched_pid *get_pid(struct trec_touched *t, uint32_t pid)
{
	struct touched_pid *tp = trec_u64map_get(&t->pids, pid);
	return tp ? tp : trec_u64map_put_new(&t->pids, pid, calloc(1, sizeof(*tp)));
}

static int note(struct trec_touched *t, uint32_t pid, const struct trec_rec_frame *f)
{
	uint64_t addr = trec_frame_lookup_addr(f->addr, f->flags);
	int err = -ENOMEM;

	if (!trec_frame_is_native(f->kind, f->flags))
		return 0;
	if (!trec_frame_is_absolute(f->kind, f->flags, f->file_id))
		return note_addr(t, f->file_id, addr);
	/* Which file holds the pc is known once the pid's mappings are. */
	pthread_mutex_lock(&t->lock);
	struct touched_pid *tp = get_pid(t, pid);
	if (tp)
		err = put_mark(&tp->pcs, addr);
	pthread_mutex_unlock(&t->lock);
	return err;
}

int trec_touched_frame(struct trec_touched *t, uint32_t pid, const struct trec_rec_frame *f)
{
	int err = note(t, pid, f);
	if (err)
		t->oom = 1;
	return err;
}

static int cmp_map(const void *a, const void *b)
{
	const struct touched_map *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->bias != y->bias)
		return x->bias < y->bias ? -1 : 1;
	return x->file_id < y->file_id ? -1 : x->file_id > y->file_id;
}

/* Under t->lock. Snapshots of a pid mostly repeat each other: keeping the
 * union sorted and unique bounds it by the distinct mappings. */
static int add_snapshot(struct touched_pid *tp, const struct trec_mapping_snapshot *s)
{
	size_t need = tp->nmaps + s->num_mappings;
	if (TREC_GROW(tp->maps, tp->capmaps, need, need) ||
	    TREC_GROW(tp->cur, tp->capcur, s->num_mappings, 16))
		return -ENOMEM;
	tp->ncur = 0;
	for (uint32_t i = 0; i < s->num_mappings; i++) {
		const struct trec_mapping *in = &s->mappings[i];
		/* treport reads only mappings of a file that hold an address */
		if (in->file_id && in->end > in->start)
			tp->cur[tp->ncur++] = (struct touched_map){ in->start, in->end, in->bias,
								    in->file_id };
	}
	qsort(tp->cur, tp->ncur, sizeof(*tp->cur), cmp_map);
	memcpy(tp->maps + tp->nmaps, tp->cur, tp->ncur * sizeof(*tp->cur));
	tp->nmaps += tp->ncur;
	qsort(tp->maps, tp->nmaps, sizeof(*tp->maps), cmp_map);
	size_t w = 0;
	for (size_t i = 0; i < tp->nmaps; i++)
		if (!w || cmp_map(&tp->maps[w - 1], &tp->maps[i]))
			tp->maps[w++] = tp->maps[i];
	tp->nmaps = w;
	return 0;
}

int trec_touched_mappings(struct trec_touched *t, const struct trec_mapping_snapshot *s)
{
	int err = -ENOMEM;

	pthread_mutex_lock(&t->lock);
	struct touched_pid *tp = get_pid(t, s->pid);
	if (tp)
		err = add_snapshot(tp, s);
	pthread_mutex_unlock(&t->lock);
	if (err)
		t->oom = 1;
	return err;
}

/* Every (file, ELF address) an absolute pc of tp may be symbolized at. */
static int resolve_pid(struct trec_touched *t, const struct touched_pid *tp)
{
	uint64_t pc;
	void *val;
	int err = 0;
	for (size_t it = 0; !err && trec_u64map_next(&tp->pcs, &it, &pc, &val);) {
		size_t n = TREC_UPPER_BOUND(tp->maps, tp->nmaps, start, pc);
		for (size_t i = 0; i < n && !err; i++)
			if (pc < tp->maps[i].end)
				err = note_addr(t, tp->maps[i].file_id, pc - tp->maps[i].bias);
	}
	return err;
}

size_t trec_touched_count(const struct trec_touched *t)
{
	return t->files.n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int trec_archive_write_touched(struct trec_writer *w, struct trec_touched *t, int level,
			       trec_archive_lookup_fn lookup, void *ctx,
			       struct trec_archive_totals *tot)
{
	uint64_t key;
	void *val;
	int rc = 0;

	memset(tot, 0, sizeof(*tot));
	pthread_mutex_lock(&t->lock);
	for (size_t it = 0; !rc && trec_u64map_next(&t->pids, &it, &key, &val);)
		rc = resolve_pid(t, val);
	pthread_mutex_unlock(&t->lock);
	if (rc)
		t->oom = 1;
	rc = 0;

	size_t n = t->files.n, k = 0;
	uint64_t *ids = calloc(n + 1, sizeof(*ids));
	if (t->oom)
		fprintf(stderr, "trecord: warning: out of memory while noting sampled files: "
			"some symbols are not embedded\n");
	if (!ids)
		return -ENOMEM;
	for (size_t it = 0; trec_u64map_next(&t->files, &it, &key, &val);)
		ids[k++] = key;
	qsort(ids, k, sizeof(*ids), cmp_u64);
	for (size_t i = 0; i < k && !rc; i++) {
		struct touched_file *tf = trec_u64map_get(&t->files, ids[i]);
		struct trec_archive_file f = { .file_id = ids[i] };
		struct trec_archive_totals one;
		char buf[4096];
		uint64_t *addrs = NULL;
		size_t na = 0;
		int lr = lookup(ctx, ids[i], &f, buf, sizeof(buf));
		if (lr) {
			if (lr == -EINTR)
				tot->skipped++;
			else
				tot->failed++;
			continue;
		}
		if (level == TREC_ARCHIVE_SAMPLED) {
			addrs = malloc((tf->addrs.n + 1) * sizeof(*addrs));
			if (!addrs) {
				rc = -ENOMEM;
				break;
			}
			for (size_t it = 0; trec_u64map_next(&tf->addrs, &it, &key, &val);)
				addrs[na++] = key;
			f.addrs = addrs;
			f.naddrs = na;
		}
		rc = trec_archive_write_all(w, &f, 1, level, &one);
		free(addrs);
		tot->files += one.files;
		tot->failed += one.failed;
		tot->bytes += one.bytes;
		tot->build_ns += one.build_ns;
	}
	free(ids);
	return rc;
}

/* ---- a long recording: per-pid state goes when the process does ---------- */

/* Resolves tp's pcs into the files' addresses now (writer thread: it owns
 * t->files) and forgets them; a cut also drops the older mappings. */
static void compact(struct trec_touched *t, struct touched_pid *tp, bool cut_maps)
{
	if (resolve_pid(t, tp))
		t->oom = 1;
	trec_u64map_free(&tp->pcs);
	if (cut_maps) {
		memcpy(tp->maps, tp->cur, tp->ncur * sizeof(*tp->cur));
		tp->nmaps = tp->ncur;
	}
}

void trec_touched_pid_done(struct trec_touched *t, uint32_t pid)
{
	pthread_mutex_lock(&t->lock);
	struct touched_pid *tp = trec_u64map_del(&t->pids, pid);
	if (tp) {
		/* Every snapshot it had is in: its pcs resolve as at the end. */
		compact(t, tp, false);
		free_pid(tp);
	}
	pthread_mutex_unlock(&t->lock);
}

void trec_touched_sweep(struct trec_touched *t)
{
	uint32_t gone[SWEEP_BATCH];
	size_t n = 0;
	uint64_t pid;
	void *val;

	pthread_mutex_lock(&t->lock);
	for (size_t it = 0; trec_u64map_next(&t->pids, &it, &pid, &val);) {
		struct touched_pid *tp = val;

		if (tp->nmaps > TOUCHED_PID_MAX || tp->pcs.n > TOUCHED_PID_MAX)
			compact(t, tp, tp->nmaps > TOUCHED_PID_MAX);
		/* Gone twice in a row: past any grace period (an exit whose
		 * event was lost, a fork copy written after the exit). */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			tp->gone_once = false;
		else if (!tp->gone_once)
			tp->gone_once = true;
		else if (n < SWEEP_BATCH)
			gone[n++] = (uint32_t)pid;
	}
	pthread_mutex_unlock(&t->lock);
	for (size_t i = 0; i < n; i++)
		trec_touched_pid_done(t, gone[i]);
}
