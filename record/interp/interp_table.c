// SPDX-License-Identifier: MIT
/* The per-file and per-pid tables of an interpreter backend; see interp_table.h. */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format/containers/u64map.h"
#include "record/interp/interp_read.h"
#include "record/interp/interp_table.h"
#include "record/io/metrics.h"

struct file_entry {
	int status; /* 1 ours and routed, 0 not ours, < 0 ours but not unwindable */
	alignas(max_align_t) unsigned char data[];
};

struct pid_entry {
	uint32_t pid;
	bool ready;  /* set up for file_id and bias */
	bool failed; /* its set-up failed once: counted in pid_failures */
	uint64_t file_id, bias;
	const struct file_entry *file;
	struct trec_interp_seen seen; /* its code handled since its exec */
	alignas(max_align_t) unsigned char data[];
};

/* What describing code may read of processes' memory per second, all
 * interpreters together: a Python program's start-up describes some
 * thousands of code objects of a few KiB each, while a hostile one could
 * make every frame's code new, each read up to MiBs (a line table). Past
 * it, frames are described when a later sample names them. */
#define DESCRIBE_BYTES_PER_SEC (64ull << 20)

static _Atomic uint64_t describes_deferred; /* all tables: one metric */

struct trec_interp_table {
	const struct trec_interp_table_ops *ops;
	struct trec_interp_sink sink;
	void *backend;
	bool verbose;
	pthread_mutex_t lock;
	struct trec_u64map files, pids; /* of struct file_entry, struct pid_entry */
	struct trec_interp_stats stats;
	uint64_t window_ns, window_bytes; /* the read budget's second, its first count */
};

/* Starts a new second of the read budget when one has passed (writer
 * thread, once a trace: the frames then only compare a count). */
static void describe_budget_tick(struct trec_interp_table *t)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - t->window_ns >= 1000000000ull) {
		t->window_ns = now;
		t->window_bytes = trec_interp_bytes_read();
	}
}

struct trec_interp_table *trec_interp_table_new(const struct trec_interp_table_ops *ops,
						const struct trec_interp_sink *sink, void *backend,
						bool verbose)
{
	struct trec_interp_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ops = ops;
	t->sink = *sink;
	t->backend = backend;
	t->verbose = verbose;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void trec_interp_table_free(struct trec_interp_table *t)
{
	uint64_t k;
	void *v;

	if (!t)
		return;
	for (size_t i = 0; trec_u64map_next(&t->pids, &i, &k, &v);) {
		struct pid_entry *p = v;

		trec_interp_seen_clear(&p->seen);
		free(p);
	}
	for (size_t i = 0; trec_u64map_next(&t->files, &i, &k, &v);)
		free(v);
	trec_u64map_free(&t->pids);
	trec_u64map_free(&t->files);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* The file behind a /proc/.../fd or map_files path, for messages. */
static const char *shown_path(const char *path, char *buf, size_t len)
{
	ssize_t n = strncmp(path, "/proc/", 6) ? -1 : readlink(path, buf, len - 1);

	if (n <= 0)
		return path;
	buf[n] = 0;
	return buf;
}

/* What a sink's set_range said of a detected file's range: its status. */
static int route_status(struct trec_interp_table *t, int err)
{
	/* A range that cannot be routed (no unwinder program: the sink
	 * warns) leaves the file's frames native. */
	if (err) {
		t->stats.unsupported++;
		return err < 0 ? err : -EIO;
	}
	t->stats.interpreters++;
	return 1;
}

static struct file_entry *file_alloc(struct trec_interp_table *t)
{
	return calloc(1, sizeof(struct file_entry) + t->ops->file_size);
}

/* Detection of a file seen for the first time, WITHOUT the lock: it reads
 * the file, and the first interpreter's range loads its BPF program (a
 * second or more under load) while the writer thread's trace, exec and
 * exit calls would wait for the lock. Only the sync thread detects. */
struct detection {
	struct file_entry *f;
	int routed; /* set_range's result, for a file that is ours */
	char err[512];
};

static void file_detect(struct trec_interp_table *t, uint64_t file_id, const char *path,
			struct detection *d)
{
	struct trec_offset_range r;

	d->err[0] = 0;
	d->routed = 0;
	d->f = file_alloc(t);
	if (!d->f)
		return;
	d->f->status = t->ops->detect(path, d->f->data, &r, d->err, sizeof(d->err));
	if (d->f->status == 0)
		d->routed = t->sink.set_range(t->sink.ctx, file_id, &r);
}

/* Under the lock: the entry of a file, adding what file_detect() found. */
static const struct file_entry *file_add(struct trec_interp_table *t, uint64_t file_id,
					 const char *path, struct detection *d)
{
	struct file_entry *f = trec_u64map_get(&t->files, file_id);
	char shown[4096];
	const char *name, *err = d->err;
	size_t n;

	if (f || !d->f) {
		free(d->f);
		return f;
	}
	if (!(f = trec_u64map_put_new(&t->files, file_id, d->f)))
		return NULL;
	if (f->status == -ENOENT) {
		f->status = 0;
		return f;
	}
	name = t->verbose ? shown_path(path, shown, sizeof(shown)) : path;
	if (f->status == 0) {
		if (t->verbose && t->ops->detected)
			t->ops->detected(f->data, name);
		f->status = route_status(t, d->routed);
		return f;
	}
	t->stats.unsupported++;
	if (!t->verbose)
		return f;
	/* Detection errors start with the path they opened: name the file. */
	n = strlen(path);
	if (!strncmp(err, path, n) && !strncmp(err + n, ": ", 2))
		fprintf(stderr, "trecord: no %s stacks for %s: %s\n", t->ops->lang, name,
			err + n + 2);
	else
		fprintf(stderr, "trecord: no %s stacks: %s\n", t->ops->lang, err);
	return f;
}

/* Under the lock: sets pid up for file f. */
static int set_up(struct trec_interp_table *t, uint32_t pid, uint64_t file_id,
		  const struct file_entry *f, const char *open_path, uint64_t bias)
{
	struct pid_entry *p = trec_u64map_get(&t->pids, pid);
	char err[256] = "";
	int ret;

	if (p && p->ready && p->file_id == file_id && p->bias == bias)
		return 1;
	if (!p) {
		p = trec_u64map_put_new(&t->pids, pid, calloc(1, sizeof(*p) + t->ops->pid_size));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
	}
	p->ready = false;
	p->file_id = file_id;
	p->bias = bias;
	p->file = f;
	ret = t->ops->set_up(t, pid, f->data, open_path, bias, p->data, err, sizeof(err));
	if (!ret) {
		p->ready = true;
		t->stats.pids++;
		return 1;
	}
	/* Right after exec the dynamic loader has not mapped libc yet: then
	 * set-up says -ENOENT, and the next sync (the loader's mappings are
	 * new) tries again. */
	if (ret == -ENOENT)
		return 0;
	if (err[0] && !p->failed) {
		p->failed = true;
		t->stats.pid_failures++;
		if (t->verbose && err[0])
			fprintf(stderr, "trecord: pid %u: %s, but %s\n", pid, t->ops->lang, err);
	}
	return ret;
}

int trec_interp_table_mapping(struct trec_interp_table *t, uint32_t pid, uint64_t file_id,
			      const char *open_path, uint64_t bias)
{
	const struct file_entry *f;
	int ret;

	pthread_mutex_lock(&t->lock);
	f = trec_u64map_get(&t->files, file_id);
	if (!f) {
		struct detection d;

		pthread_mutex_unlock(&t->lock);
		file_detect(t, file_id, open_path, &d);
		pthread_mutex_lock(&t->lock);
		f = file_add(t, file_id, open_path, &d);
	}
	if (!f)
		ret = -ENOMEM;
	else if (f->status <= 0)
		ret = 0;
	else
		ret = set_up(t, pid, file_id, f, open_path, bias);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int trec_interp_table_add_file(struct trec_interp_table *t, uint64_t file_id, const void *file,
			       const struct trec_offset_range *r)
{
	struct file_entry *f;
	int ret = -ENOMEM;

	pthread_mutex_lock(&t->lock);
	/* Entries stay where they are: pids point at them. */
	f = trec_u64map_get(&t->files, file_id);
	if (!f)
		f = trec_u64map_put_new(&t->files, file_id, file_alloc(t));
	if (f) {
		memcpy(f->data, file, t->ops->file_size);
		f->status = route_status(t, t->sink.set_range(t->sink.ctx, file_id, r));
		ret = f->status < 0 ? f->status : 0;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

void trec_interp_table_trace(struct trec_interp_table *t, uint32_t pid,
			     const struct trec_frame *frames, uint32_t n, void *arg)
{
	struct pid_entry *p = NULL;

	if (!t)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct trec_frame *f = &frames[i];
		int ret;

		if (f->kind != t->ops->frame_kind || (f->flags & TREC_FRAME_F_ERROR))
			continue;
		if (!p) {
			pthread_mutex_lock(&t->lock);
			p = trec_u64map_get(&t->pids, pid);
			if (!p) {
				pthread_mutex_unlock(&t->lock);
				return;
			}
			describe_budget_tick(t);
		}
		if (trec_interp_bytes_read() - t->window_bytes >= DESCRIBE_BYTES_PER_SEC) {
			atomic_fetch_add_explicit(&describes_deferred, 1, memory_order_relaxed);
			break; /* (not noted as seen: a later sample describes it) */
		}
		ret = t->ops->describe(t, arg, pid, p->data, &p->seen, f);
		if (ret == 1)
			t->stats.code_written++;
		else if (ret == -ESTALE)
			t->stats.code_stale++;
		else if (ret < 0)
			t->stats.code_unreadable++;
	}
	if (p)
		pthread_mutex_unlock(&t->lock);
}

void trec_interp_table_exec(struct trec_interp_table *t, uint32_t pid)
{
	struct pid_entry *p;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	p = trec_u64map_get(&t->pids, pid);
	if (p)
		trec_interp_seen_clear(&p->seen);
	pthread_mutex_unlock(&t->lock);
}

void trec_interp_table_exit(struct trec_interp_table *t, uint32_t pid)
{
	struct pid_entry *p;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	p = trec_u64map_del(&t->pids, pid);
	if (p) {
		t->sink.del_proc(t->sink.ctx, pid);
		trec_interp_seen_clear(&p->seen);
		free(p);
	}
	pthread_mutex_unlock(&t->lock);
}

void trec_interp_table_lock(struct trec_interp_table *t)
{
	pthread_mutex_lock(&t->lock);
}

void trec_interp_table_unlock(struct trec_interp_table *t)
{
	pthread_mutex_unlock(&t->lock);
}

void *trec_interp_table_pid(struct trec_interp_table *t, uint32_t pid, const void **file)
{
	struct pid_entry *p = trec_u64map_get(&t->pids, pid);

	if (file)
		*file = p && p->file->status == 1 ? p->file->data : NULL;
	return p ? p->data : NULL;
}

const struct trec_interp_sink *trec_interp_table_sink(const struct trec_interp_table *t)
{
	return &t->sink;
}

void *trec_interp_table_backend(const struct trec_interp_table *t)
{
	return t->backend;
}

bool trec_interp_table_verbose(const struct trec_interp_table *t)
{
	return t->verbose;
}

void trec_interp_table_get_stats(struct trec_interp_table *t, struct trec_interp_stats *st)
{
	pthread_mutex_lock(&t->lock);
	*st = t->stats;
	pthread_mutex_unlock(&t->lock);
}

static struct trec_interp_table *table_of(void *state)
{
	return *(struct trec_interp_table **)state;
}

int trec_interp_table_on_mapping(void *state, uint32_t pid, uint64_t file_id,
				 const char *open_path, uint64_t bias)
{
	return trec_interp_table_mapping(table_of(state), pid, file_id, open_path, bias);
}

void trec_interp_table_on_trace(void *state, uint32_t pid, const struct trec_frame *frames,
				uint32_t n)
{
	trec_interp_table_trace(table_of(state), pid, frames, n, NULL);
}

void trec_interp_table_on_exec(void *state, uint32_t pid)
{
	trec_interp_table_exec(table_of(state), pid);
}

void trec_interp_table_on_exit(void *state, uint32_t pid)
{
	trec_interp_table_exit(table_of(state), pid);
}

void trec_interp_table_on_stats(void *state, struct trecord_counters *cnt)
{
	struct trec_interp_table *t = table_of(state);
	struct trec_interp_stats st;
	unsigned m = t->ops->metric_first;

	trec_interp_table_get_stats(t, &st);
	trecord_set(cnt, (enum trecord_metric)m++, st.interpreters);
	trecord_set(cnt, (enum trecord_metric)m++, st.unsupported);
	trecord_set(cnt, (enum trecord_metric)m++, st.pids);
	if (t->ops->metric_pid_failures)
		trecord_set(cnt, (enum trecord_metric)m++, st.pid_failures);
	trecord_set(cnt, (enum trecord_metric)m++, st.code_written);
	trecord_set(cnt, (enum trecord_metric)m++, st.code_unreadable);
	trecord_set(cnt, (enum trecord_metric)m, st.code_stale);
	trecord_set(cnt, TRECORD_METRIC_INTERP_DESCRIBES_DEFERRED,
		    atomic_load_explicit(&describes_deferred, memory_order_relaxed));
}
