// SPDX-License-Identifier: MIT
/* trecord's Python glue; see python_sync.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/containers/vec.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_sync.h"
#include "record/interp/python/python_tramp.h"

struct py_file {
	uint64_t file_id;
	int status; /* 1 CPython, 0 not, < 0 unsupported CPython (errno) */
	struct trec_py_offsets offsets;
};

struct py_pid {
	uint32_t pid;
	uint64_t file_id;
	bool ready;          /* py_procs holds proc.info for file_id and bias */
	bool tsd_failed;     /* counted in pid_failures */
	struct trec_py_process proc;
};

struct trec_py_sync {
	const struct trec_py_sync_ops *ops;
	void *ctx;
	bool verbose;
	pthread_mutex_t lock;
	/* Few files and pids are Python: plain arrays. */
	struct py_file *files;
	size_t num_files, cap_files;
	struct py_pid **pids;
	size_t num_pids, cap_pids;
	struct trec_pycode_cache *code;
	struct trec_py_sync_stats stats;
	/* Synthetic file ids of trampoline arenas whose deltas were handed out. */
	uint64_t tramp_ids[8];
	size_t num_tramp_ids;
};

struct trec_py_sync *trec_py_sync_new(const struct trec_py_sync_ops *ops, void *ctx, bool verbose)
{
	struct trec_py_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->verbose = verbose;
	s->code = trec_pycode_cache_new();
	if (!s->code) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void trec_py_sync_free(struct trec_py_sync *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->num_pids; i++)
		free(s->pids[i]);
	free(s->pids);
	free(s->files);
	trec_pycode_cache_free(s->code);
	pthread_mutex_destroy(&s->lock);
	free(s);
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

/* The detection result for a file, computed on first sight. */
static const struct py_file *file_of(struct trec_py_sync *s, uint64_t file_id, const char *path)
{
	struct py_file *f;
	char err[512] = "", shown[4096];

	for (size_t i = 0; i < s->num_files; i++)
		if (s->files[i].file_id == file_id)
			return &s->files[i];
	if (TREC_GROW(s->files, s->cap_files, s->num_files + 1, 16))
		return NULL;
	f = &s->files[s->num_files++];
	memset(f, 0, sizeof(*f));
	f->file_id = file_id;
	/* Unlocked: detection reads the file, and the first interpreter loads
	 * its BPF program (a second under load), while the writer thread's
	 * trace, exec and exit calls wait for the lock. Only this thread (the
	 * sync thread) adds files. */
	pthread_mutex_unlock(&s->lock);
	int status = trec_py_detect(path, &f->offsets, err, sizeof(err)), routed = 0;

	if (status == 0) {
		struct trec_offset_range r;

		trec_py_offset_range(&f->offsets, &r);
		routed = s->ops->set_range(s->ctx, file_id, &r);
	}
	pthread_mutex_lock(&s->lock);
	f->status = status;
	if (f->status == 0) {
		f->status = routed ? -EIO : 1;
		s->stats.interpreters++;
		if (s->verbose)
			fprintf(stderr, "trecord: python %u.%u.%u in %s (eval loop %s.cold part)\n",
				f->offsets.major, f->offsets.minor, f->offsets.micro,
				shown_path(path, shown, sizeof(shown)),
				f->offsets.cold_start ? "and its " : "without a ");
	} else if (f->status == -ENOENT) {
		f->status = 0;
	} else {
		size_t n = strlen(path);
		const char *why = strncmp(err, path, n) || strncmp(err + n, ": ", 2) ? err : err + n + 2;

		s->stats.unsupported++;
		if (s->verbose)
			fprintf(stderr, "trecord: no python stacks for %s: %s\n",
				shown_path(path, shown, sizeof(shown)), why);
	}
	return f;
}

static struct py_pid *pid_of(struct trec_py_sync *s, uint32_t pid)
{
	for (size_t i = 0; i < s->num_pids; i++)
		if (s->pids[i]->pid == pid)
			return s->pids[i];
	return NULL;
}

int trec_py_sync_mapping(struct trec_py_sync *s, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias)
{
	const struct py_file *f;
	struct py_pid *p;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	f = file_of(s, file_id, open_path);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	if (f->status <= 0)
		goto out;
	p = pid_of(s, pid);
	if (p && p->ready && p->file_id == file_id && p->proc.bias == bias) {
		ret = 1;
		goto out;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || TREC_GROW(s->pids, s->cap_pids, s->num_pids + 1, 16)) {
			free(p);
			ret = -ENOMEM;
			goto out;
		}
		s->pids[s->num_pids++] = p;
	}
	p->pid = pid;
	p->ready = false;
	p->file_id = file_id;
	p->proc.bias = bias;
	p->proc.offsets = f->offsets;
	snprintf(p->proc.path, sizeof(p->proc.path), "%s", open_path);
	/* Right after exec the dynamic loader has not mapped libc yet: then
	 * this fails, and the next sync (the loader's mappings are new) tries
	 * again. */
	ret = trec_tsd_detect_pid((int)pid, &p->proc.tsd);
	if (ret) {
		if (ret != -ENOENT && !p->tsd_failed) {
			p->tsd_failed = true;
			s->stats.pid_failures++;
			if (s->verbose)
				fprintf(stderr, "trecord: pid %u: python, but libc's thread-specific data layout is unknown\n",
					pid);
		}
		goto out;
	}
	trec_py_proc_info_init(&p->proc.offsets, bias, &p->proc.tsd, &p->proc.info);
	ret = s->ops->set_proc(s->ctx, pid, &p->proc.info);
	if (!ret) {
		p->ready = true;
		s->stats.pids++;
		ret = 1;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void trec_py_sync_remove(struct trec_py_sync *s, uint32_t pid)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->num_pids; i++) {
		if (s->pids[i]->pid != pid)
			continue;
		free(s->pids[i]);
		s->pids[i] = s->pids[--s->num_pids];
		s->ops->del_proc(s->ctx, pid);
		trec_pycode_cache_forget_pid(s->code, pid);
		break;
	}
	pthread_mutex_unlock(&s->lock);
}

void trec_py_sync_exec(struct trec_py_sync *s, uint32_t pid)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	trec_pycode_cache_forget_pid(s->code, pid);
	pthread_mutex_unlock(&s->lock);
}

void trec_py_sync_trace(struct trec_py_sync *s, uint32_t pid, const struct trec_frame *frames,
			uint32_t num_frames)
{
	const struct py_pid *p = NULL;

	if (!s)
		return;
	for (uint32_t i = 0; i < num_frames; i++) {
		const struct trec_frame *f = &frames[i];
		int ret;

		if (f->kind != TREC_FRAME_PYTHON || (f->flags & TREC_FRAME_F_ERROR))
			continue;
		if (!p) {
			pthread_mutex_lock(&s->lock);
			p = pid_of(s, pid);
			if (!p) {
				pthread_mutex_unlock(&s->lock);
				return;
			}
		}
		ret = trec_pycode_cache_note(s->code, s->ops->write_blob, s->ctx, pid, &p->proc,
					     f->file_id, (uint32_t)f->addr_or_line);
		if (ret == 1)
			s->stats.code_written++;
		else if (ret == -ESTALE)
			s->stats.code_stale++;
		else if (ret < 0)
			s->stats.code_unreadable++;
	}
	if (p)
		pthread_mutex_unlock(&s->lock);
}

void trec_py_sync_get_stats(struct trec_py_sync *s, struct trec_py_sync_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	pthread_mutex_unlock(&s->lock);
}

/* Hands out an arena's deltas once per synthetic id. */
static int tramp_deltas_once(struct trec_py_sync *s, const struct trec_py_offsets *o,
			     size_t period, uint64_t id, struct trec_file_deltas *deltas)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	int n;

	for (size_t i = 0; i < s->num_tramp_ids; i++)
		if (s->tramp_ids[i] == id)
			return 0;
	if (s->num_tramp_ids == sizeof(s->tramp_ids) / sizeof(s->tramp_ids[0]))
		return -ENOSPC;
	n = trec_py_tramp_rules(o->tramp, o->tramp_len, rows);
	if (n < 0 || trec_py_tramp_deltas(rows, (size_t)n, o->tramp_len, period, deltas))
		return -ENOTSUP;
	s->tramp_ids[s->num_tramp_ids++] = id;
	if (s->verbose)
		fprintf(stderr, "trecord: python perf trampolines: %u-byte template every %zu bytes, %zu deltas per arena\n",
			o->tramp_len, period, deltas->num);
	return 0;
}

int trec_py_sync_anon(struct trec_py_sync *s, uint32_t pid, uint64_t start, uint64_t end,
		      uint64_t *file_id, struct trec_file_deltas *deltas)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	const struct py_file *f = NULL;
	const struct py_pid *p;
	size_t period = 0;
	int ret = 0;

	memset(deltas, 0, sizeof(*deltas));
	if (!s || end <= start || (end - start) % TREC_PY_TRAMP_ARENA)
		return 0;
	pthread_mutex_lock(&s->lock);
	p = pid_of(s, pid);
	for (size_t i = 0; p && i < s->num_files; i++)
		if (s->files[i].file_id == p->file_id && s->files[i].status == 1)
			f = &s->files[i];
	if (!f || f->offsets.major != 3 || f->offsets.minor < 12 || !f->offsets.tramp_len ||
	    trec_py_tramp_rules(f->offsets.tramp, f->offsets.tramp_len, rows) < 0)
		goto out;
	/* Adjacent arenas may share one VMA: every one must be an arena of
	 * the same period. */
	for (uint64_t a = start; a < end; a += TREC_PY_TRAMP_ARENA) {
		size_t pa = trec_py_tramp_probe(pid, a, f->offsets.tramp, f->offsets.tramp_len);

		if (!pa || (period && pa != period))
			goto out;
		period = pa;
	}
	*file_id = trec_py_tramp_file_id(f->offsets.tramp, f->offsets.tramp_len, period);
	ret = tramp_deltas_once(s, &f->offsets, period, *file_id, deltas) ? 0 : 1;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}
