// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "record/unwind/delta_cache.h"
#include "record/unwind/delta_loader.h"

struct job {
	uint64_t file_id;
	int fd; /* -1: deltas made by trecord */
	struct trec_file_deltas *deltas;
	char name[256];
};

/* Marks a file as loading (or no longer) for BPF's deferral. */
static void set_loading(const struct trec_delta_loader *l, uint64_t file_id, bool on)
{
	uint8_t one = 1;

	if (l->defer_files_fd < 0)
		return;
	if (on)
		bpf_map_update_elem(l->defer_files_fd, &file_id, &one, BPF_ANY);
	else
		bpf_map_delete_elem(l->defer_files_fd, &file_id);
}

void trec_delta_loader_expect(struct trec_delta_loader *l, uint64_t file_id)
{
	if (l->threaded)
		set_loading(l, file_id, true);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The file's deltas from the persistent cache, else extracted (and then
 * cached). A damaged entry is only a miss. */
static int extract_cached(struct trec_delta_loader *l, int fd, const char *path,
			  struct trec_file_deltas *d, bool *cached)
{
	int err = l->cache_dir ? trec_delta_cache_get(l->cache_dir, fd, d, false) : -ENOENT;

	if (!err) {
		*cached = true;
		atomic_fetch_add(&l->cache_hits, 1);
		return 0;
	}
	if (err == -EINVAL)
		atomic_fetch_add(&l->cache_rejected, 1);
	err = trec_deltas_extract(path, d);
	if (!err && l->cache_dir)
		trec_delta_cache_put(l->cache_dir, fd, d);
	return err;
}

static void load(struct trec_delta_loader *l, const struct job *j)
{
	struct trec_file_deltas d = { 0 };
	char path[64];
	struct timespec t0;
	uint32_t files;
	bool cached = false;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Through our fd: the process that mapped the file may be gone. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", j->fd);
	if (j->deltas) {
		d = *j->deltas;
		free(j->deltas);
		err = 0;
	} else {
		err = extract_cached(l, j->fd, path, &d, &cached);
	}
	if (!err)
		err = trec_delta_store_load(l->store, j->file_id, &d);
	if (err) {
		atomic_fetch_add(&l->failed, 1);
		if (l->verbose)
			fprintf(stderr, "trecord: no stack deltas for %s: %s\n", j->name,
				strerror(-err));
	} else {
		atomic_fetch_add(&l->loaded, 1);
		if (l->verbose)
			fprintf(stderr, "trecord: stack deltas for %s: %zu in %.1f ms%s\n", j->name,
				d.num, ms_since(&t0), cached ? " (from the delta cache)" : "");
	}
	trec_file_deltas_free(&d);
	set_loading(l, j->file_id, false);
	atomic_fetch_add(&l->finished, 1);
	if (j->fd >= 0)
		close(j->fd);

	uint32_t du, iu, pu;

	trec_delta_store_usage(l->store, &du, &iu, &pu, &files);
	atomic_store(&l->deltas_used, du);
	atomic_store(&l->infos_used, iu);
	atomic_store(&l->pages_used, pu);
}

static void *loader_main(void *arg)
{
	struct trec_delta_loader *l = arg;
	bool closed = false;

	while (!closed) {
		bool large_closed;
		struct trec_msg *m = trec_msg_queue_pop(&l->jobs, 0, &closed);

		if (!m)
			m = trec_msg_queue_pop(&l->large_jobs, 0, &large_closed);
		if (!m) {
			/* Wake for a small file at once, a large one within 50 ms. */
			m = trec_msg_queue_pop(&l->jobs, 50, &closed);
			if (!m)
				continue;
		}
		atomic_store(&l->busy, true);
		load(l, (const struct job *)m->data);
		atomic_store(&l->busy, false);
		free(m);
		atomic_fetch_sub(&l->queued, 1);
	}
	return NULL;
}

int trec_delta_loader_init(struct trec_delta_loader *l, const struct trec_delta_sink_ops *ops,
			   void *ctx, bool verbose)
{
	memset(l, 0, sizeof(*l));
	l->verbose = verbose;
	l->defer_files_fd = -1;
	l->store = trec_delta_store_new(ops, ctx);
	if (!l->store)
		return -ENOMEM;
	if (trec_msg_queue_init(&l->jobs, 4096, 4096 * sizeof(struct job))) {
		trec_delta_store_free(l->store);
		l->store = NULL;
		return -ENOMEM;
	}
	if (trec_msg_queue_init(&l->large_jobs, 4096, 4096 * sizeof(struct job))) {
		trec_msg_queue_destroy(&l->jobs);
		trec_delta_store_free(l->store);
		l->store = NULL;
		return -ENOMEM;
	}
	return 0;
}

int trec_delta_loader_start(struct trec_delta_loader *l)
{
	if (pthread_create(&l->thread, NULL, loader_main, l))
		return -EAGAIN;
	pthread_setname_np(l->thread, "trecord-deltas");
	l->threaded = true;
	return 0;
}

int trec_delta_loader_submit(struct trec_delta_loader *l, uint64_t file_id, int fd,
			     uint64_t size, const char *name)
{
	struct job j = { .file_id = file_id, .fd = fd };
	int err;

	snprintf(j.name, sizeof(j.name), "%s", name);
	if (!l->threaded) {
		load(l, &j);
		return 0;
	}
	atomic_fetch_add(&l->queued, 1);
	set_loading(l, file_id, true);
	err = trec_msg_queue_push(size > TREC_DELTA_LARGE_FILE ? &l->large_jobs : &l->jobs, &j,
				  sizeof(j));
	if (err) {
		set_loading(l, file_id, false);
		atomic_fetch_sub(&l->queued, 1);
		atomic_fetch_add(&l->failed, 1);
		close(fd);
	}
	return err;
}

int trec_delta_loader_submit_deltas(struct trec_delta_loader *l, uint64_t file_id,
				    struct trec_file_deltas *d, const char *name)
{
	struct job j = { .file_id = file_id, .fd = -1 };
	int err;

	j.deltas = malloc(sizeof(*j.deltas));
	if (!j.deltas) {
		trec_file_deltas_free(d);
		return -ENOMEM;
	}
	*j.deltas = *d;
	memset(d, 0, sizeof(*d));
	snprintf(j.name, sizeof(j.name), "%s", name);
	if (!l->threaded) {
		load(l, &j);
		return 0;
	}
	atomic_fetch_add(&l->queued, 1);
	err = trec_msg_queue_push(&l->jobs, &j, sizeof(j));
	if (err) {
		atomic_fetch_sub(&l->queued, 1);
		atomic_fetch_add(&l->failed, 1);
		trec_file_deltas_free(j.deltas);
		free(j.deltas);
	}
	return err;
}

bool trec_delta_loader_drain(struct trec_delta_loader *l, unsigned timeout_ms)
{
	for (unsigned i = 0; l->threaded && atomic_load(&l->queued); i++) {
		if (i >= timeout_ms)
			return false;
		usleep(1000);
	}
	return true;
}

static void drop_jobs(struct trec_delta_loader *l, struct trec_msg_queue *q)
{
	struct trec_msg *m;
	bool closed;

	while ((m = trec_msg_queue_pop(q, 0, &closed))) {
		struct job *j = (struct job *)m->data;

		set_loading(l, j->file_id, false);
		if (j->fd >= 0)
			close(j->fd);
		if (j->deltas) {
			trec_file_deltas_free(j->deltas);
			free(j->deltas);
		}
		free(m);
		atomic_fetch_sub(&l->queued, 1);
	}
}

bool trec_delta_loader_stop(struct trec_delta_loader *l, unsigned wait_ms)
{
	if (!l->store || !l->threaded)
		return true;
	drop_jobs(l, &l->jobs);
	drop_jobs(l, &l->large_jobs);
	trec_msg_queue_close(&l->jobs);
	for (unsigned i = 0; atomic_load(&l->busy) && i < wait_ms; i++)
		usleep(1000);
	if (atomic_load(&l->busy))
		return false;
	pthread_join(l->thread, NULL);
	l->threaded = false;
	drop_jobs(l, &l->large_jobs);
	return true;
}

void trec_delta_loader_destroy(struct trec_delta_loader *l)
{
	if (!l->store)
		return;
	trec_msg_queue_destroy(&l->jobs);
	trec_msg_queue_destroy(&l->large_jobs);
	trec_delta_store_free(l->store);
	l->store = NULL;
}
