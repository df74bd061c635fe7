/* SPDX-License-Identifier: MIT */
/*
 * A bounded FIFO of byte messages between two threads. push() never
 * blocks: when the queue is full the message is dropped and counted, so a
 * slow consumer (compression, disk) can never stall the producer that
 * drains the BPF ring buffer.
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
/* Like push, but ordinary messages may only fill 7/8 of the queue: the
 * rest is kept for urgent ones (process events among a flood of samples). */
int trec_msg_queue_push_prio(struct trec_msg_queue *q, const void *data, size_t len,
			     bool urgent);
/* Like push_prio, but queues m itself (taken on success only). */
int trec_msg_queue_push_msg(struct trec_msg_queue *q, struct trec_msg *m, bool urgent);
/* Waits up to timeout_ms for a message (caller frees it). NULL on timeout,
 * or when closed and empty (then *closed is set). */
struct trec_msg *trec_msg_queue_pop(struct trec_msg_queue *q, int timeout_ms, bool *closed);
/* Like pop, but takes up to max messages under one lock (in order):
 * returns how many; 0 on timeout or when closed and empty. */
size_t trec_msg_queue_pop_many(struct trec_msg_queue *q, struct trec_msg **out, size_t max,
			       int timeout_ms, bool *closed);
/* No more pushes; pop drains what is left, then reports closed. */
void trec_msg_queue_close(struct trec_msg_queue *q);
void trec_msg_queue_destroy(struct trec_msg_queue *q);

#endif /* TREC_MSG_QUEUE_H */
