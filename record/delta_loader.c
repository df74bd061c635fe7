// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "delta_loader.h"

struct job {
	uint64_t file_id;
	int fd;
	char name[256];
};

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void load(struct trec_delta_loader *l, const struct job *j)
{
	struct trec_file_deltas d = { 0 };
	char path[64];
	struct timespec t0;
	uint32_t files;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Through our fd: the process that mapped the file may be gone. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", j->fd);
	err = trec_deltas_extract(path, &d);
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
			fprintf(stderr, "trecord: stack deltas for %s: %zu in %.1f ms\n", j->name,
				d.num, ms_since(&t0));
	}
	trec_file_deltas_free(&d);
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
		struct trec_msg *m = trec_msg_queue_pop(&l->jobs, 200, &closed);

		if (!m)
			continue;
		load(l, (const struct job *)m->data);
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
	l->store = trec_delta_store_new(ops, ctx);
	if (!l->store)
		return -ENOMEM;
	if (trec_msg_queue_init(&l->jobs, 4096, 4096 * sizeof(struct job))) {
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
	l->threaded = true;
	return 0;
}

int trec_delta_loader_submit(struct trec_delta_loader *l, uint64_t file_id, int fd,
			     const char *name)
{
	struct job j = { .file_id = file_id, .fd = fd };
	int err;

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
		close(fd);
	}
	return err;
}

void trec_delta_loader_drain(struct trec_delta_loader *l)
{
	while (l->threaded && atomic_load(&l->queued))
		usleep(1000);
}

void trec_delta_loader_destroy(struct trec_delta_loader *l)
{
	struct trec_msg *m;
	bool closed;

	if (!l->store)
		return;
	if (l->threaded) {
		/* Drop queued jobs so shutdown does not wait for extractions. */
		while ((m = trec_msg_queue_pop(&l->jobs, 0, &closed))) {
			close(((struct job *)m->data)->fd);
			free(m);
			atomic_fetch_sub(&l->queued, 1);
		}
		trec_msg_queue_close(&l->jobs);
		pthread_join(l->thread, NULL);
	}
	trec_msg_queue_destroy(&l->jobs);
	trec_delta_store_free(l->store);
	l->store = NULL;
}
