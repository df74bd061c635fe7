// SPDX-License-Identifier: MIT
/* JIT symbol capture (capture.h). */
#include "record/jit/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/io/metrics.h"
#include "record/jit/jit_budget.h"
#include "record/jit/jitdump.h"
#include "record/jit/perfmap.h"
#include "record/jit/watch.h"
#include "record/io/log.h"
#include "record/unwind/deferred/deferred_queue.h"
#include "format/containers/u64map.h"
#include "symbolize_rule.h"

/* A process's queued samples reach the writer within this after its exit;
 * samples deferred for their deltas (deferred_queue.h) may take up to
 * TREC_DEFERRED_MAX_WAIT_NS more: while some wait, reads at exit wait too. */
#define EXIT_GRACE_NS 1000000000ULL
#define MAX_PCS (1u << 20)    /* sampled pcs kept, all pids (8 MiB of keys) */
#define MAX_OPEN_FDS 256      /* handles to /tmp dirs and dump files kept open */

struct jit_pid {
	uint32_t pid, nspid;     /* nspid: the pid in its own namespace (file names) */
	uint32_t uid, euid;
	bool have_ids, jit_like, too_many;
	bool watched;            /* was handed to the watch (watch.h), once */
	char *dump_path;         /* jit-N.dump as mapped */
	int dump_fd, tmp_fd;     /* -1: not open */
	struct trec_u64map pcs;  /* lookup address -> (void *)1 */
	uint64_t last_sample_ns, read_ns, due_ns;
};

struct trec_jit_capture {
	pthread_mutex_t lock;    /* pids and pcs: the writer and sync threads */
	struct trec_u64map pids; /* pid -> struct jit_pid */
	struct trec_jit_watch *watch; /* the sync thread's */
	size_t npcs, nfds, ndue;
	trec_jit_write_fn write;
	void *ctx;
	struct trecord_counters *cnt;
	bool verbose, quiet;
	bool hold; /* deferred samples are waiting (sync thread) */
	struct trec_jit_budget budget; /* bytes all files may hold per second */
};

struct trec_jit_capture *trec_jit_capture_new(trec_jit_write_fn write, void *ctx,
					      struct trecord_counters *cnt, bool verbose,
					      bool quiet)
{
	struct trec_jit_capture *c = calloc(1, sizeof(*c));

	if (!c || !(c->watch = trec_jit_watch_new())) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	trec_jit_budget_init(&c->budget);
	c->write = write;
	c->ctx = ctx;
	c->cnt = cnt;
	c->verbose = verbose;
	c->quiet = quiet;
	return c;
}

static void close_handles(struct trec_jit_capture *c, struct jit_pid *jp)
{
	if (jp->dump_fd >= 0 && !close(jp->dump_fd))
		c->nfds--;
	if (jp->tmp_fd >= 0 && !close(jp->tmp_fd))
		c->nfds--;
	jp->dump_fd = jp->tmp_fd = -1;
}

void trec_jit_capture_free(struct trec_jit_capture *c)
{
	uint64_t k;
	void *v;

	if (!c)
		return;
	for (size_t i = 0; trec_u64map_next(&c->pids, &i, &k, &v);) {
		struct jit_pid *jp = v;

		close_handles(c, jp);
		trec_u64map_free(&jp->pcs);
		free(jp->dump_path);
		free(jp);
	}
	trec_u64map_free(&c->pids);
	trec_jit_watch_free(c->watch);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->budget.lock);
	free(c);
}

/* The pid's state, created if new (lock held); NULL on -ENOMEM. */
static struct jit_pid *get_pid(struct trec_jit_capture *c, uint32_t pid)
{
	struct jit_pid *jp = trec_u64map_get(&c->pids, pid);

	if (jp || !(jp = calloc(1, sizeof(*jp))))
		return jp;
	jp->pid = jp->nspid = pid;
	jp->dump_fd = jp->tmp_fd = -1;
	return trec_u64map_put_new(&c->pids, pid, jp);
}

void trec_jit_on_frames(struct trec_jit_capture *c, uint32_t pid, uint64_t time_ns,
			const struct trec_rec_frame *f, uint32_t n)
{
	struct jit_pid *jp;
	uint32_t i;

	/* most samples have no pc outside a file: no lock for them */
	for (i = 0; i < n && !trec_frame_is_absolute(f[i].kind, f[i].flags, f[i].file_id); i++)
		;
	if (!c || i == n)
		return;
	pthread_mutex_lock(&c->lock);
	if ((jp = get_pid(c, pid))) {
		for (; i < n; i++) {
			int err = 0;

			if (!trec_frame_is_absolute(f[i].kind, f[i].flags, f[i].file_id) ||
			    jp->too_many)
				continue;
			uint64_t a = trec_frame_lookup_addr(f[i].addr, f[i].flags);
			size_t before = jp->pcs.n;

			if (c->npcs < MAX_PCS)
				trec_u64map_put(&jp->pcs, a, (void *)1, &err);
			/* no room: this pid's files are then kept whole (bounded by limits) */
			jp->too_many = c->npcs >= MAX_PCS || err;
			c->npcs += jp->pcs.n - before;
		}
		if (time_ns > jp->last_sample_ns)
			jp->last_sample_ns = time_ns;
	}
	pthread_mutex_unlock(&c->lock);
}

/* ---- what a process is: ids and handles, taken while it lives ------------- */

/* Uid:, the effective uid, and the innermost NSpid: of /proc/PID/status. */
static void read_ids(struct jit_pid *jp)
{
	char path[64], buf[4096], *p;
	unsigned ruid, euid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", jp->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	if (!(p = strstr(buf, "\nUid:")) || sscanf(p + 5, "%u %u", &ruid, &euid) != 2)
		return;
	jp->uid = ruid;
	jp->euid = euid;
	jp->have_ids = true;
	if ((p = strstr(buf, "\nNSpid:"))) {
		char *end = strchr(p + 1, '\n'), *last = NULL;
		unsigned v;

		if (end)
			*end = 0;
		for (char *q = p + 7; (q = strpbrk(q, "0123456789")); q += strspn(q, "0123456789"))
			last = q;
		if (last && sscanf(last, "%u", &v) == 1)
			jp->nspid = v;
	}
}

/* Code in memory no file backs; not the kernel's special mappings. */
static bool is_anon_exec(const struct trec_mapping *m)
{
	return (m->prot & PROT_EXEC) && !m->file_id &&
	       (!m->path[0] || !strncmp(m->path, "[anon", 5));
}

/* 0 if fd is a file the process may have written: regular, owned by root
 * or the process's user (perf refuses other owners too). */
static int check_file(const struct jit_pid *jp, int fd, const char **why)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return -EPERM;
	}
	if (st.st_uid && !(jp->have_ids && (st.st_uid == jp->uid || st.st_uid == jp->euid))) {
		*why = "not owned by the process's user or root";
		return -EPERM;
	}
	return 0;
}

static void warn(const struct trec_jit_capture *c, const char *path, const char *what)
{
	if (!c->quiet)
		fprintf(stderr, "trecord: warning: %s: %s, ignoring it\n", path, what);
}

static void open_dump(struct trec_jit_capture *c, struct jit_pid *jp, const struct trec_mapping *m)
{
	char path[96];
	const char *why = NULL;
	int fd;

	free(jp->dump_path);
	jp->dump_path = strdup(m->path);
	if (c->nfds >= MAX_OPEN_FDS)
		return;
	/* the mapped file itself, whatever namespace or unlink hides its path */
	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", jp->pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (check_file(jp, fd, &why)) {
		if (why)
			warn(c, m->path, why);
		close(fd);
		return;
	}
	jp->dump_fd = fd;
	c->nfds++;
}

/* Code but no JIT file seen: its maps are re-read until one shows up. */
static void watch(struct trec_jit_capture *c, struct jit_pid *jp)
{
	if (jp->dump_path) {
		trec_jit_watch_del(c->watch, jp->pid);
	} else if (jp->jit_like && !jp->watched) {
		jp->watched = true;
		if (!trec_jit_watch_add(c->watch, jp->pid, jp->nspid))
			trecord_count(c->cnt, TRECORD_METRIC_JIT_UNWATCHED, 1);
	}
}

size_t trec_jit_recheck(struct trec_jit_capture *c, uint64_t now_ns, uint32_t *pids)
{
	struct trec_jit_watch_round r;

	if (!c || !trec_jit_watch_tick(c->watch, now_ns, &r))
		return 0;
	trecord_count(c->cnt, TRECORD_METRIC_JIT_MAPS_RECHECKED, r.rechecked);
	trecord_count(c->cnt, TRECORD_METRIC_JIT_FILES_FOUND_LATE, r.found);
	for (size_t i = 0; i < r.ndump; i++) {
		trec_vlog(c->verbose, "pid %u: its jitdump is mapped now, resyncing", r.dump_pids[i]);
		pids[i] = r.dump_pids[i];
	}
	return r.ndump;
}

void trec_jit_on_mappings(struct trec_jit_capture *c, const struct trec_mapping_snapshot *m)
{
	const struct trec_mapping *dump = NULL;
	struct jit_pid *jp;
	bool anon = false, dumpish = false;

	if (!c)
		return;
	for (uint32_t i = 0; i < m->num_mappings; i++) {
		anon |= is_anon_exec(&m->mappings[i]);
		dumpish |= (m->mappings[i].prot & PROT_EXEC) &&
			   trec_jitdump_marker_pid(m->mappings[i].path) >= 0;
	}
	pthread_mutex_lock(&c->lock);
	jp = trec_u64map_get(&c->pids, m->pid);
	if (!jp && (anon || dumpish)) /* other processes have no JIT names */
		jp = get_pid(c, m->pid);
	pthread_mutex_unlock(&c->lock);
	if (!jp)
		return;
	/* the fields below are the sync thread's alone */
	if (!jp->have_ids)
		read_ids(jp);
	for (uint32_t i = 0; i < m->num_mappings && dumpish && !jp->dump_path; i++) {
		long n = trec_jitdump_marker_pid(m->mappings[i].path);

		if ((m->mappings[i].prot & PROT_EXEC) && (n == jp->pid || n == jp->nspid))
			dump = &m->mappings[i];
	}
	if (dump)
		open_dump(c, jp, dump);
	if ((anon || jp->dump_path) && !jp->jit_like) {
		jp->jit_like = true;
		/* its /tmp, for a perf map written at exit, when it has no root left */
		if (c->nfds < MAX_OPEN_FDS) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%u/root/tmp", jp->pid);
			jp->tmp_fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			c->nfds += jp->tmp_fd >= 0;
		}
		trec_vlog(c->verbose, "pid %u: JIT-like (%s), its perf map is perf-%u.map", jp->pid,
		     !jp->dump_path ? "anonymous code" : anon ? "anonymous code, jitdump" : "jitdump",
		     jp->nspid);
	}
	watch(c, jp);
}

/* ---- reading the files -------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sampled pcs, sorted (lock held); NULL on -ENOMEM. */
static uint64_t *sorted_pcs(const struct jit_pid *jp, size_t *n)
{
	uint64_t *v = malloc((jp->pcs.n ? jp->pcs.n : 1) * sizeof(*v)), k;
	void *val;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t it = 0; trec_u64map_next(&jp->pcs, &it, &k, &val);)
		v[(*n)++] = k;
	qsort(v, *n, sizeof(*v), cmp_u64);
	return v;
}

/* Opens a file of the process like perf: no symlink at the end, no wait on
 * a FIFO, then check_file. A missing file is not worth a word. */
static int open_checked(struct trec_jit_capture *c, const struct jit_pid *jp, int dirfd,
			const char *path, const char *shown)
{
	const char *why = NULL;
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno != ENOENT)
			trec_vlog(c->verbose, "%s: %s", shown, strerror(errno));
		return -1;
	}
	if (check_file(jp, fd, &why)) {
		if (why)
			warn(c, shown, why);
		close(fd);
		return -1;
	}
	return fd;
}

typedef int (*parse_fn)(int fd, const struct trec_jit_filter *f, struct trec_jit_table *t);

/* Parses fd (closed here) and writes what it names as JITSYMS records. */
static void read_file(struct trec_jit_capture *c, const struct jit_pid *jp, int fd,
		      uint32_t source, const char *shown, const struct trec_jit_filter *f,
		      uint64_t now)
{
	struct trec_jitsyms hdr = {
		.time_ns = now, .pid = jp->pid, .source = source, .path = shown,
		.flags = f ? TREC_JIT_F_FILTERED : 0,
	};
	const char *unit = source == TREC_JIT_PERF_MAP ? "line" : "record";
	parse_fn parse = source == TREC_JIT_PERF_MAP ? trec_perfmap_parse_fd : trec_jitdump_parse_fd;
	struct trec_jit_limits lim = TREC_JIT_LIMITS_DEFAULT;
	struct trec_jit_table t;
	struct stat st;
	int err;

	lim.max_file_bytes = trec_jit_budget_take(&c->budget, now, lim.max_file_bytes);
	trec_jit_budget_used(&c->budget, fstat(fd, &st) || (uint64_t)st.st_size > lim.max_file_bytes
						 ? lim.max_file_bytes : (uint64_t)st.st_size);
	trec_jit_table_init(&t, &lim);
	err = parse(fd, f, &t);
	close(fd);
	if (err == -EINVAL) {
		warn(c, shown, t.why);
	} else if (err) {
		if (!c->quiet)
			fprintf(stderr, "trecord: warning: %s: %s\n", shown, strerror(-err));
	} else {
		if (t.bad && !c->quiet)
			fprintf(stderr, "trecord: warning: %s: %u malformed %s%s ignored (first: %s)\n",
				shown, t.bad, unit, t.bad > 1 ? "s" : "", t.why);
		if ((t.flags & TREC_JIT_F_TRUNCATED) && !c->quiet)
			fprintf(stderr, "trecord: warning: %s: over trecord's limits, some of its "
				"names are not recorded\n", shown);
		trec_jit_table_emit(&t, &hdr, c->write, c->ctx);
		trecord_count(c->cnt, TRECORD_METRIC_JIT_FILES_READ, 1);
		trecord_count(c->cnt, TRECORD_METRIC_JIT_SYMBOLS_WRITTEN, t.n);
		trecord_count(c->cnt, TRECORD_METRIC_JIT_BAD_INPUT, t.bad);
		trec_vlog(c->verbose, "pid %u: %s: %u JIT names kept, %u %ss refused", jp->pid, shown, t.n, t.bad,
		     unit);
	}
	trec_jit_table_free(&t);
}

/* The perf map: through the process's own /tmp if it was opened, else the
 * host's when the process shares its pid namespace (a container's pid N is
 * some other process's perf-N.map here). */
static void read_perfmap(struct trec_jit_capture *c, const struct jit_pid *jp,
			 const struct trec_jit_filter *f, uint64_t now)
{
	char name[32], shown[48];
	int fd = -1;

	snprintf(name, sizeof(name), "perf-%u.map", jp->nspid);
	snprintf(shown, sizeof(shown), "/tmp/%s", name);
	if (jp->tmp_fd >= 0)
		fd = open_checked(c, jp, jp->tmp_fd, name, shown);
	else if (jp->have_ids && jp->nspid == jp->pid)
		fd = open_checked(c, jp, AT_FDCWD, shown, shown);
	if (fd >= 0)
		read_file(c, jp, fd, TREC_JIT_PERF_MAP, shown, f, now);
}

static void read_jitdump(struct trec_jit_capture *c, const struct jit_pid *jp,
			 const struct trec_jit_filter *f, uint64_t now)
{
	int fd = -1;

	if (!jp->dump_path)
		return;
	if (jp->dump_fd >= 0)
		fd = dup(jp->dump_fd); /* parse_fd reads with pread: any offset */
	else if (jp->have_ids && jp->nspid == jp->pid)
		fd = open_checked(c, jp, AT_FDCWD, jp->dump_path, jp->dump_path);
	if (fd >= 0)
		read_file(c, jp, fd, TREC_JIT_JITDUMP, jp->dump_path, f, now);
}

/* Reads the pid's files now (sync or main thread). */
static void read_pid(struct trec_jit_capture *c, struct jit_pid *jp, uint64_t now)
{
	struct trec_jit_filter f = { 0 };
	uint64_t *pcs;
	bool all;

	pthread_mutex_lock(&c->lock);
	all = jp->too_many;
	pcs = all ? NULL : sorted_pcs(jp, &f.n);
	pthread_mutex_unlock(&c->lock);
	f.pcs = pcs;
	jp->read_ns = now;
	/* nothing sampled in its JIT code: nothing to name */
	if (all || f.n) {
		read_perfmap(c, jp, all ? NULL : &f, now);
		read_jitdump(c, jp, all ? NULL : &f, now);
	}
	free(pcs);
}

void trec_jit_on_exit(struct trec_jit_capture *c, uint32_t pid, uint64_t now_ns)
{
	struct jit_pid *jp;

	if (!c)
		return;
	trec_jit_watch_del(c->watch, pid);
	pthread_mutex_lock(&c->lock);
	jp = trec_u64map_get(&c->pids, pid);
	if (jp && (jp->jit_like || jp->pcs.n || jp->too_many) && !jp->due_ns) {
		jp->due_ns = now_ns + EXIT_GRACE_NS;
		c->ndue++;
	}
	pthread_mutex_unlock(&c->lock);
}

/* After the read at its exit: the process is gone, and so is its entry (a
 * long recording of many processes must not keep one per pid); a new
 * process with its pid starts from nothing. */
static void forget_process(struct trec_jit_capture *c, struct jit_pid *jp)
{
	close_handles(c, jp);
	free(jp->dump_path);
	trec_jit_watch_del(c->watch, jp->pid);
	pthread_mutex_lock(&c->lock);
	c->npcs -= jp->pcs.n;
	trec_u64map_free(&jp->pcs);
	if (trec_u64map_get(&c->pids, jp->pid) == jp)
		trec_u64map_del(&c->pids, jp->pid);
	pthread_mutex_unlock(&c->lock);
	free(jp);
}

static void run_due(struct trec_jit_capture *c, uint64_t now_ns, bool all)
{
	uint64_t k;
	void *v;

	/* entries are removed only by forget_process, on this thread, so the
	 * collected ones stay valid outside the lock: collect first */
	pthread_mutex_lock(&c->lock);
	size_t n = 0, cap = c->ndue;
	struct jit_pid **due = malloc((cap ? cap : 1) * sizeof(*due));

	for (size_t i = 0; due && n < cap && trec_u64map_next(&c->pids, &i, &k, &v);) {
		struct jit_pid *jp = v;
		uint64_t deadline = jp->due_ns + (c->hold ? TREC_DEFERRED_MAX_WAIT_NS : 0);

		if (jp->due_ns && (all || deadline <= now_ns)) {
			due[n++] = jp;
			jp->due_ns = 0;
			c->ndue--;
		}
	}
	pthread_mutex_unlock(&c->lock);
	for (size_t i = 0; i < n; i++) {
		read_pid(c, due[i], now_ns);
		forget_process(c, due[i]);
	}
	free(due);
}

void trec_jit_hold_exited(struct trec_jit_capture *c, bool hold)
{
	if (c)
		c->hold = hold;
}

void trec_jit_tick(struct trec_jit_capture *c, uint64_t now_ns)
{
	if (c && c->ndue)
		run_due(c, now_ns, false);
}

static bool read_owed(const struct jit_pid *jp)
{
	return jp->last_sample_ns > jp->read_ns && (jp->pcs.n || jp->too_many);
}

void trec_jit_finish(struct trec_jit_capture *c, uint64_t now_ns)
{
	if (!c)
		return;
	run_due(c, now_ns, true);
	/* processes still running, or whose exit went unseen */
	trec_jit_read_live(c, now_ns);
}

void trec_jit_read_live(struct trec_jit_capture *c, uint64_t now_ns)
{
	uint64_t k;
	void *v;

	if (!c)
		return;
	/* as run_due: collected under the lock (the writer thread adds pids),
	 * read outside it; only this thread removes entries */
	pthread_mutex_lock(&c->lock);
	size_t n = 0, cap = c->pids.n;
	struct jit_pid **owed = malloc((cap ? cap : 1) * sizeof(*owed));

	for (size_t i = 0; owed && n < cap && trec_u64map_next(&c->pids, &i, &k, &v);)
		if (read_owed(v))
			owed[n++] = v;
	pthread_mutex_unlock(&c->lock);
	for (size_t i = 0; i < n; i++) {
		if (!owed[i]->have_ids)
			read_ids(owed[i]);
		read_pid(c, owed[i], now_ns);
	}
	free(owed);
}
