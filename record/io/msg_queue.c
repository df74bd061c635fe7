// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "record/io/msg_queue.h"

int trec_msg_queue_init(struct trec_msg_queue *q, size_t max_msgs, size_t max_bytes)
{
	pthread_condattr_t ca;

	memset(q, 0, sizeof(*q));
	q->ring = calloc(max_msgs, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = max_msgs;
	q->max_bytes = max_bytes;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->nonempty, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

int trec_msg_queue_push(struct trec_msg_queue *q, const void *data, size_t len)
{
	struct trec_msg *m = malloc(sizeof(*m) + len);
	int err = 0;

	if (!m)
		return -ENOMEM;
	m->len = len;
	memcpy(m->data, data, len);
	pthread_mutex_lock(&q->lock);
	if (q->closed) {
		err = -EPIPE;
	} else if (q->n >= q->cap || q->bytes + len > q->max_bytes) {
		err = -ENOSPC;
	} else {
		q->ring[(q->head + q->n) % q->cap] = m;
		q->n++;
		q->bytes += len;
		pthread_cond_signal(&q->nonempty);
	}
	pthread_mutex_unlock(&q->lock);
	if (err)
		free(m);
	return err;
}

struct trec_msg *trec_msg_queue_pop(struct trec_msg_queue *q, int timeout_ms, bool *closed)
{
	struct trec_msg *m = NULL;
	struct timespec until;

	*closed = false;
	pthread_mutex_lock(&q->lock);
	if (!q->n && !q->closed && timeout_ms > 0) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += timeout_ms / 1000;
		until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!q->n && !q->closed)
			if (pthread_cond_timedwait(&q->nonempty, &q->lock, &until) == ETIMEDOUT)
				break;
	}
	if (q->n) {
		m = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
		q->bytes -= m->len;
	} else if (q->closed) {
		*closed = true;
	}
	pthread_mutex_unlock(&q->lock);
	return m;
}

void trec_msg_queue_close(struct trec_msg_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

void trec_msg_queue_destroy(struct trec_msg_queue *q)
{
	while (q->n) {
		free(q->ring[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	free(q->ring);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->nonempty);
	memset(q, 0, sizeof(*q));
}
