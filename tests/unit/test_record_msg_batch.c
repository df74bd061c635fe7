// SPDX-License-Identifier: MIT
/*
 * record/io/msg_batch.c: messages packed by the ring thread come out of
 * the queue in order, whole and 8-byte aligned; a full batch refuses an
 * entry; a nearly full batch is queued without a copy, and the batch
 * goes on with a new buffer (or keeps its own when the queue refuses it);
 * and entries that claim more than the message holds are refused (the
 * writer reads the batch back).
 */
#include <stdlib.h>
#include <string.h>

#include "record/io/msg_batch.h"
#include "record/io/msg_queue.h"
#include "unit_check.h"

static void fill(uint8_t *p, size_t n, unsigned salt)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + salt);
}

static void test_round_trip(void)
{
	struct trec_msg_batch b = { 0 };
	struct trec_msg_queue q;
	uint8_t data[3000], want[3000];
	size_t lens[] = { 1, 7, 8, 9, 1024, 2999 };
	unsigned n = sizeof(lens) / sizeof(lens[0]), got = 0, added = 0;
	bool ok = true, closed;
	struct trec_msg *m;

	CHECK("queue", trec_msg_queue_init(&q, 16, 1 << 20) == 0);
	for (unsigned i = 0; i < n; i++) {
		fill(data, lens[i], i);
		added += trec_msg_batch_add(&b, data, lens[i]);
	}
	CHECK("all added", added == n);
	CHECK("pushed", trec_msg_batch_push(&b, &q) == 0);
	m = trec_msg_queue_pop(&q, 0, &closed);
	CHECK("popped", m != NULL);
	for (size_t off = 0; m;) {
		const uint8_t *d;
		size_t len;

		if (!trec_msg_batch_next(m, &off, &d, &len))
			break;
		if (got >= n) {
			ok = false;
			break;
		}
		fill(want, lens[got], got);
		ok &= len == lens[got] && !memcmp(d, want, len);
		ok &= ((uintptr_t)d & 7) == 0; /* traces are read in place */
		got++;
	}
	CHECK("every entry, in order, aligned", ok && got == n);
	free(m);
	trec_msg_batch_free(&b);
	trec_msg_queue_destroy(&q);
}

static void test_full(void)
{
	struct trec_msg_batch b = { 0 };
	static uint8_t big[80 << 10];
	unsigned n = 0;

	CHECK("larger than a batch: refused", !trec_msg_batch_add(&b, big, sizeof(big)));
	while (n < 1000 && trec_msg_batch_add(&b, big, 4000))
		n++;
	CHECK("a batch fills, then refuses", n > 10 && n < 1000);
	trec_msg_batch_free(&b);
}

/* Entries of 4000 bytes, each filled from its number, until the batch is
 * full; returns how many. */
static unsigned fill_batch(struct trec_msg_batch *b, unsigned salt)
{
	static uint8_t data[4000];
	unsigned n = 0;

	for (; n < 1000; n++) {
		fill(data, sizeof(data), salt + n);
		if (!trec_msg_batch_add(b, data, sizeof(data)))
			break;
	}
	return n;
}

/* Whether m holds n entries of fill_batch(salt). */
static bool holds(const struct trec_msg *m, unsigned n, unsigned salt)
{
	static uint8_t want[4000];
	const uint8_t *d;
	size_t off = 0, len;
	unsigned got = 0;

	while (trec_msg_batch_next(m, &off, &d, &len)) {
		fill(want, sizeof(want), salt + got);
		if (got >= n || len != sizeof(want) || memcmp(d, want, len))
			return false;
		got++;
	}
	return got == n;
}

static void test_handover(void)
{
	struct trec_msg_batch b = { 0 };
	struct trec_msg_queue q;
	struct trec_msg *m1, *m2, *kept;
	unsigned n1, n2, n3;
	bool closed;

	CHECK("queue", trec_msg_queue_init(&q, 16, 1 << 20) == 0);
	n1 = fill_batch(&b, 0);
	kept = b.m;
	CHECK("a full batch is queued", trec_msg_batch_push(&b, &q) == 0);
	m1 = trec_msg_queue_pop(&q, 0, &closed);
	CHECK("... as its own buffer, not a copy", m1 == kept && b.m == NULL);
	CHECK("... whole", m1 && holds(m1, n1, 0));
	n2 = fill_batch(&b, 100);
	CHECK("the batch goes on in a new buffer", n2 == n1 && b.m && b.m != m1);
	CHECK("... queued too", trec_msg_batch_push(&b, &q) == 0);
	m2 = trec_msg_queue_pop(&q, 0, &closed);
	CHECK("... whole, and the first one is untouched",
	      m2 && holds(m2, n2, 100) && holds(m1, n1, 0));
	free(m1);
	free(m2);
	trec_msg_queue_destroy(&q);

	/* A queue that refuses it: the batch keeps its buffer, emptied. */
	CHECK("queue", trec_msg_queue_init(&q, 16, 1000) == 0);
	n3 = fill_batch(&b, 200);
	kept = b.m;
	CHECK("refused: its entries are counted lost", trec_msg_batch_push(&b, &q) == n3);
	CHECK("... the buffer is kept and empty", b.m == kept && b.count == 0);
	CHECK("... and takes entries again", fill_batch(&b, 300) == n3);
	trec_msg_batch_free(&b);
	trec_msg_queue_destroy(&q);
}

/* A batch message as the writer might receive it, bent. */
static void test_hostile(void)
{
	struct {
		struct trec_msg m;
		uint8_t data[64];
	} x;
	uint32_t hdr[2] = { TREC_MSG_BATCH, 1 }, ent[2] = { 40, 0 };
	const uint8_t *d;
	size_t off = 0, len;

	memset(&x, 0, sizeof(x));
	memcpy(x.m.data, hdr, 8);
	memcpy(x.m.data + 8, ent, 8);
	x.m.len = 8 + 8 + 40;
	CHECK("an entry that fits is read", trec_msg_batch_next(&x.m, &off, &d, &len) &&
						    len == 40 && d == x.m.data + 16);
	CHECK("then the end", !trec_msg_batch_next(&x.m, &off, &d, &len));
	off = 0;
	x.m.len -= 1;
	CHECK("one byte short: refused", !trec_msg_batch_next(&x.m, &off, &d, &len));
	off = 0;
	x.m.len = 8 + 7;
	CHECK("a cut entry header: refused", !trec_msg_batch_next(&x.m, &off, &d, &len));
	off = 0;
	ent[0] = UINT32_MAX;
	memcpy(x.m.data + 8, ent, 8);
	x.m.len = sizeof(x.data);
	CHECK("a huge length: refused", !trec_msg_batch_next(&x.m, &off, &d, &len));
}

int main(void)
{
	test_round_trip();
	test_full();
	test_handover();
	test_hostile();
	return failures != 0;
}
