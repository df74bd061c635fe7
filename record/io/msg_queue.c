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
	return trec_msg_queue_push_prio(q, data, len, true);
}

int trec_msg_queue_push_msg(struct trec_msg_queue *q, struct trec_msg *m, bool urgent)
{
	size_t cap = urgent ? q->cap : q->cap - q->cap / 8;
	size_t max_bytes = urgent ? q->max_bytes : q->max_bytes - q->max_bytes / 8;
	int err = 0;

	pthread_mutex_lock(&q->lock);
	if (q->closed) {
		err = -EPIPE;
	} else if (q->n >= cap || q->bytes + m->len > max_bytes) {
		err = -ENOSPC;
	} else {
		q->ring[(q->head + q->n) % q->cap] = m;
		q->n++;
		q->bytes += m->len;
		pthread_cond_signal(&q->nonempty);
	}
	pthread_mutex_unlock(&q->lock);
	return err;
}

int trec_msg_queue_push_prio(struct trec_msg_queue *q, const void *data, size_t len,
			     bool urgent)
{
	struct trec_msg *m = malloc(sizeof(*m) + len);
	int err;

	if (!m)
		return -ENOMEM;
	m->len = len;
	memcpy(m->data, data, len);
	err = trec_msg_queue_push_msg(q, m, urgent);
	if (err)
		free(m);
	return err;
}

size_t trec_msg_queue_pop_many(struct trec_msg_queue *q, struct trec_msg **out, size_t max,
			       int timeout_ms, bool *closed)
{
	struct timespec until;
	size_t n = 0;

	*closed = false;
	pthread_mutex_lock(&q->lock);
	/* The clock only when there is something to wait for: at -a rates
	 * the writer finds the queue non-empty nearly every time. */
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
	for (; n < max && q->n; n++) {
		out[n] = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
		q->bytes -= out[n]->len;
	}
	if (!n && q->closed)
		*closed = true;
	pthread_mutex_unlock(&q->lock);
	return n;
}

struct trec_msg *trec_msg_queue_pop(struct trec_msg_queue *q, int timeout_ms, bool *closed)
{
	struct trec_msg *m = NULL;

	return trec_msg_queue_pop_many(q, &m, 1, timeout_ms, closed) ? m : NULL;
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
