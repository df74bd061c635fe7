/* SPDX-License-Identifier: MIT */
/*
 * A bounded FIFO of byte messages between threads (requests to the sync
 * thread, jobs of the delta loader). push() never blocks: when the queue
 * is full the message is refused and the caller counts or retries.
 */
#ifndef TREC_MSG_QUEUE_H
#define TREC_MSG_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trec_msg {
	size_t len;
	uint8_t data[]; /* 8-byte aligned */
};

struct trec_msg_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct trec_msg **ring;
	size_t cap, head, n;
	size_t bytes, max_bytes;
	bool closed;
};

int trec_msg_queue_init(struct trec_msg_queue *q, size_t max_msgs, size_t max_bytes);
/* Copies data. 0, or -ENOSPC when full (the caller counts the drop),
 * -ENOMEM, -EPIPE after close. */
int trec_msg_queue_push(struct trec_msg_queue *q, const void *data, size_t len);
/* Waits up to timeout_ms for a message (caller frees it). NULL on timeout,
 * or when closed and empty (then *closed is set). */
struct trec_msg *trec_msg_queue_pop(struct trec_msg_queue *q, int timeout_ms, bool *closed);
/* No more pushes; pop drains what is left, then reports closed. */
void trec_msg_queue_close(struct trec_msg_queue *q);
void trec_msg_queue_destroy(struct trec_msg_queue *q);

#endif /* TREC_MSG_QUEUE_H */
