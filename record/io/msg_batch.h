/* SPDX-License-Identifier: MIT */
/*
 * Consecutive messages packed into one queue message: at -a rates the
 * ring thread's malloc, copy and lock per sample (and the writer's free)
 * were most of its time. One batch is one allocation and one push; the
 * writer unpacks it in order.
 *
 * A batch message: u32 TREC_MSG_BATCH, u32 count, then count entries of
 * u32 len, u32 0, len bytes, zero-padded to 8 (so each one stays 8-byte
 * aligned, as a message of its own is).
 */
#ifndef TREC_MSG_BATCH_H
#define TREC_MSG_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trec_msg;
struct trec_msg_queue;

/* A message type of userspace's own, never one of BPF's (trec_types.h). */
#define TREC_MSG_BATCH 0x48435442u

struct trec_msg_batch {
	struct trec_msg *m; /* being filled (a 64 KB buffer), or NULL */
	uint32_t count;
};

/* Appends a copy of data. False when it does not fit (push the batch and
 * add again) or on ENOMEM. */
bool trec_msg_batch_add(struct trec_msg_batch *b, const void *data, size_t len);
/* Hands the batch to q (urgent as in trec_msg_queue_push_prio). Returns
 * how many messages it held if the queue refused it (0 if taken or empty). */
uint32_t trec_msg_batch_push(struct trec_msg_batch *b, struct trec_msg_queue *q);
/* The next entry of a batch message from *off (start at 0). False at the
 * end or on a malformed entry. */
bool trec_msg_batch_next(const struct trec_msg *m, size_t *off, const uint8_t **data,
			 size_t *len);
void trec_msg_batch_free(struct trec_msg_batch *b);

#endif /* TREC_MSG_BATCH_H */
