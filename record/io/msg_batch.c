// SPDX-License-Identifier: MIT
/* Packing queue messages (see msg_batch.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/io/msg_batch.h"
#include "record/io/msg_queue.h"

/* About a hundred traces: big enough to amortize, small enough that the
 * writer sees samples soon and a refused batch loses few. */
#define BATCH_BYTES (64u << 10)
#define HDR 8u
/* A batch this full is queued as it is: its buffer is at most a third more
 * than the queue counts. */
#define HANDOVER_BYTES (BATCH_BYTES - BATCH_BYTES / 4)

static size_t padded(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

bool trec_msg_batch_add(struct trec_msg_batch *b, const void *data, size_t len)
{
	uint32_t v[2] = { (uint32_t)len, 0 };

	if (len > BATCH_BYTES - 2 * HDR)
		return false;
	if (!b->m) { /* the buffer being filled: push queues it or a copy */
		b->m = malloc(sizeof(*b->m) + BATCH_BYTES);
		if (!b->m)
			return false;
		b->m->len = HDR;
		b->count = 0;
	}
	if (b->m->len + HDR + padded(len) > BATCH_BYTES)
		return false;
	memcpy(b->m->data + b->m->len, v, sizeof(v));
	memcpy(b->m->data + b->m->len + HDR, data, len);
	memset(b->m->data + b->m->len + HDR + len, 0, padded(len) - len);
	b->m->len += HDR + padded(len);
	b->count++;
	return true;
}

uint32_t trec_msg_batch_push(struct trec_msg_batch *b, struct trec_msg_queue *q)
{
	uint32_t v[2] = { TREC_MSG_BATCH, b->count }, n = b->count;
	struct trec_msg *m;
	int err;

	if (!b->m || !n)
		return 0;
	memcpy(b->m->data, v, sizeof(v));
	if (b->m->len >= HANDOVER_BYTES) {
		/* Nearly full (a backlog is read in these): the buffer itself
		 * is queued, not a copy of it; the next add takes a new one. */
		m = b->m;
	} else {
		/* A copy of the size used, so queued batches hold what the
		 * queue counts (a 64 KB buffer cut down in place left holes
		 * the next batch did not fit, and the heap grew with the
		 * backlog). */
		m = malloc(sizeof(*m) + b->m->len);
		if (m)
			memcpy(m, b->m, sizeof(*m) + b->m->len);
	}
	err = m ? trec_msg_queue_push_msg(q, m, false) : -ENOMEM;
	if (!err && m == b->m)
		b->m = NULL;
	else if (err && m != b->m)
		free(m);
	if (b->m)
		b->m->len = HDR;
	b->count = 0;
	return err ? n : 0;
}

bool trec_msg_batch_next(const struct trec_msg *m, size_t *off, const uint8_t **data,
			 size_t *len)
{
	uint32_t v[2];

	if (!*off)
		*off = HDR;
	if (*off + HDR > m->len)
		return false;
	memcpy(v, m->data + *off, sizeof(v));
	if (v[0] > m->len - *off - HDR)
		return false;
	*data = m->data + *off + HDR;
	*len = v[0];
	*off += HDR + padded(v[0]);
	return true;
}

void trec_msg_batch_free(struct trec_msg_batch *b)
{
	free(b->m);
	b->m = NULL;
	b->count = 0;
}
