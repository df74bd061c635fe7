// SPDX-License-Identifier: MIT
/* record/io/trace_delta.c: whole traces from BPF's trace deltas, what
 * happens when a delta's base is missing or the message is hostile, the
 * stack keys it gives: those of the whole frames, from the hashes of the
 * blocks a delta changed and the base's others, and how long a whole
 * trace it gives stays whole. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "record/io/trace_delta.h"
#include "unit_check.h"

#define HDR TREC_TRACE_HEADER_SIZE
#define FR sizeof(struct trec_frame)

static struct trec_trace out, scratch;
static size_t out_len;

/* A whole trace of n frames: frame i's address is salt + i. */
static void make(struct trec_trace *t, uint32_t cpu, uint32_t tid, uint32_t seq, uint32_t n,
		 uint64_t salt)
{
	memset(t, 0, sizeof(*t));
	t->msg_type = TREC_MSG_TRACE;
	t->pid = 100;
	t->tid = tid;
	t->cpu = cpu;
	t->seq = seq;
	t->num_frames = n;
	for (uint32_t i = 0; i < n; i++)
		t->frames[i] = (struct trec_frame){ .file_id = 7, .addr_or_line = salt + i,
						    .kind = TREC_FRAME_NATIVE };
}

/* t cut to a delta of its first d frames. */
static size_t cut(struct trec_trace *t, uint32_t d)
{
	t->msg_type = TREC_MSG_TRACE_DELTA;
	t->delta_frames = d;
	return HDR + d * FR;
}

static enum trec_delta_result apply(struct trec_trace_bases *b, const struct trec_trace *t,
				    size_t len)
{
	const struct trec_trace *whole = NULL;
	enum trec_delta_result r = trec_trace_delta_apply(b, t, len, &scratch, &whole, &out_len, NULL);

	/* What the caller reads: a copy (a message's ring space is reused). */
	memset(&out, 0xa5, sizeof(out));
	if (r != TREC_DELTA_BAD)
		memcpy(&out, whole, out_len);
	return r;
}

/* out is t made whole: t's first d frames, then want's. */
static bool rebuilt_as(const struct trec_trace *want)
{
	struct trec_trace w = *want;

	w.msg_type = TREC_MSG_TRACE;
	w.delta_frames = 0;
	return out_len == HDR + want->num_frames * FR && memcmp(&out, &w, out_len) == 0;
}

static bool leaf_only(uint64_t leaf_addr)
{
	return out_len == HDR + 2 * FR && out.num_frames == 2 && out.msg_type == TREC_MSG_TRACE &&
	       out.frames[0].addr_or_line == leaf_addr && out.frames[1].flags == TREC_FRAME_F_ERROR &&
	       out.frames[1].addr_or_line == TREC_ERR_DELTA_NO_BASE;
}

static void test_rebuild(void)
{
	struct trec_trace_bases b = { 0 };
	struct trec_trace base, next, want;
	size_t len;

	make(&base, 0, 5, 10, 200, 1000);
	CHECK("a whole trace is used as it is", apply(&b, &base, HDR + 200 * FR) == TREC_DELTA_WHOLE);
	/* Same callers, another leaf and frame 1. */
	make(&want, 0, 5, 11, 200, 1000);
	want.frames[0].addr_or_line = 1;
	want.frames[1].addr_or_line = 2;
	want.ktime_ns = 99;
	next = want;
	len = cut(&next, 2);
	CHECK("a delta is rebuilt from the CPU's last trace",
	      apply(&b, &next, len) == TREC_DELTA_REBUILT && rebuilt_as(&want));
	/* The rebuilt trace is the base of the next delta. */
	make(&want, 0, 5, 12, 200, 1000);
	want.frames[0].addr_or_line = 3;
	want.frames[1].addr_or_line = 2;
	next = want;
	len = cut(&next, 1);
	CHECK("a delta of a rebuilt delta (frame 1 from the rebuilt one)",
	      apply(&b, &next, len) == TREC_DELTA_REBUILT && rebuilt_as(&want));
	/* An off-CPU wait (seq 0) in between is no CPU's base. */
	make(&base, 0, 5, 0, 3, 5000);
	apply(&b, &base, HDR + 3 * FR);
	make(&want, 0, 5, 13, 200, 1000);
	next = want;
	len = cut(&next, 1);
	want.frames[1].addr_or_line = 2; /* still the last record trace's */
	CHECK("a trace not sent from the record (seq 0) does not replace the base",
	      apply(&b, &next, len) == TREC_DELTA_REBUILT && rebuilt_as(&want));
	trec_trace_bases_free(&b);
}

/* Sends a whole trace of 100 frames (seq, on cpu, tid 5), as BPF does. */
static void whole(struct trec_trace_bases *b, uint32_t cpu, uint32_t seq)
{
	struct trec_trace t;

	make(&t, cpu, 5, seq, 100, 1000);
	apply(b, &t, HDR + 100 * FR);
}

/* Sends a delta of 3 frames of a trace of n frames (seq, on cpu, tid) with
 * leaf address leaf; returns what became of it. */
static enum trec_delta_result delta(struct trec_trace_bases *b, uint32_t cpu, uint32_t tid,
				    uint32_t seq, uint32_t n, uint64_t leaf)
{
	struct trec_trace t;
	size_t len;

	make(&t, cpu, tid, seq, n, 1000);
	t.frames[0].addr_or_line = leaf;
	len = cut(&t, 3);
	return apply(b, &t, len);
}

static void test_lost_base(void)
{
	struct trec_trace_bases b = { 0 };

	whole(&b, 1, 20);
	CHECK("a delta whose base was lost (21): leaf and DELTA_NO_BASE",
	      delta(&b, 1, 5, 22, 100, 42) == TREC_DELTA_NO_BASE && leaf_only(42));
	CHECK("... and the deltas after it, until a whole trace",
	      delta(&b, 1, 5, 23, 100, 43) == TREC_DELTA_NO_BASE && leaf_only(43));
	whole(&b, 1, 24);
	CHECK("... after which deltas are rebuilt again",
	      delta(&b, 1, 5, 25, 100, 44) == TREC_DELTA_REBUILT);
	CHECK("a base of another thread is no base",
	      delta(&b, 1, 6, 26, 100, 45) == TREC_DELTA_NO_BASE);
	whole(&b, 1, 27);
	CHECK("a base of another length is no base",
	      delta(&b, 1, 5, 28, 99, 46) == TREC_DELTA_NO_BASE);
	CHECK("another CPU's trace is no base", delta(&b, 2, 5, 29, 100, 47) == TREC_DELTA_NO_BASE);
	whole(&b, 1, UINT32_MAX);
	CHECK("seq 1 follows seq 0xffffffff (BPF's count skips 0)",
	      delta(&b, 1, 5, 1, 100, 48) == TREC_DELTA_REBUILT);
	whole(&b, TREC_DELTA_MAX_CPUS + 5, 2);
	CHECK("a cpu past the kept ones has no base",
	      delta(&b, TREC_DELTA_MAX_CPUS + 5, 5, 3, 100, 49) == TREC_DELTA_NO_BASE);
	trec_trace_bases_free(&b);
}

static void test_hostile(void)
{
	struct trec_trace_bases b = { 0 };
	struct trec_trace t, base;
	size_t len;

	make(&base, 0, 5, 1, 50, 1000);
	apply(&b, &base, HDR + 50 * FR);
	make(&t, 0, 5, 2, 50, 1000);
	len = cut(&t, 3);
	CHECK("hostile: shorter than a header", apply(&b, &t, HDR - 1) == TREC_DELTA_BAD);
	CHECK("hostile: fewer frame bytes than delta_frames", apply(&b, &t, len - 1) == TREC_DELTA_BAD);
	t.delta_frames = 0;
	CHECK("hostile: a delta of no frames", apply(&b, &t, len) == TREC_DELTA_BAD);
	t.delta_frames = 50;
	CHECK("hostile: a delta of all its frames", apply(&b, &t, sizeof(t)) == TREC_DELTA_BAD);
	t.delta_frames = 3;
	t.num_frames = TREC_MAX_FRAMES + 1;
	CHECK("hostile: num_frames past the maximum", apply(&b, &t, sizeof(t)) == TREC_DELTA_BAD);
	t.num_frames = 50;
	t.seq = 0;
	CHECK("hostile: a delta with no seq", apply(&b, &t, len) == TREC_DELTA_BAD);
	t.seq = 2;
	t.msg_type = 77;
	CHECK("hostile: another message type", apply(&b, &t, len) == TREC_DELTA_BAD);
	make(&t, 0, 5, 2, 50, 1000);
	CHECK("hostile: a whole trace shorter than its frames",
	      apply(&b, &t, HDR + 49 * FR) == TREC_DELTA_BAD);
	make(&t, 0, 5, 2, 50, 1000);
	len = cut(&t, 3);
	CHECK("the base survives hostile messages", apply(&b, &t, len) == TREC_DELTA_REBUILT);
	trec_trace_bases_free(&b);
}

static uint64_t seed = 1;

static uint64_t rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed >> 33;
}

static bool same_key(struct trec_stack_key a, struct trec_stack_key b)
{
	return a.lo == b.lo && a.hi == b.hi;
}

/* The key apply gives, and trec_stack_key over *want's frames. */
static bool key_matches(struct trec_trace_bases *b, const struct trec_trace *msg, size_t len,
			const struct trec_trace *want, enum trec_delta_result expect)
{
	const struct trec_trace *whole;
	struct trec_stack_key key;
	size_t wl;

	if (trec_trace_delta_apply(b, msg, len, &scratch, &whole, &wl, &key) != expect)
		return false;
	return same_key(key, trec_stack_key(want->frames, want->num_frames, want->kernel_stack_id));
}

static void test_keys(void)
{
	static const uint32_t lens[] = { 1, 7, 8, 9, 157, TREC_MAX_FRAMES };
	struct trec_trace_bases b = { 0 };
	struct trec_trace cur, msg;
	bool ok = true;
	uint32_t seq = 1;

	for (unsigned l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		uint32_t n = lens[l];

		make(&cur, 3, 5, seq++, n, 0x400000 + 0x1000 * l);
		cur.kernel_stack_id = (int32_t)l - 1;
		ok &= key_matches(&b, &cur, HDR + n * FR, &cur, TREC_DELTA_WHOLE);
		/* Deltas of 1 frame to most of them, in a chain: each one's key
		 * must be that of its whole frames. */
		for (unsigned i = 0; i < 200 && n > 1; i++) {
			uint32_t d = 1 + (uint32_t)(rnd() % (i % 5 ? 3 : n - 1));

			for (uint32_t j = 0; j < d; j++)
				cur.frames[j].addr_or_line = 0x400000 + rnd() % 64;
			cur.seq = seq++;
			msg = cur;
			ok &= key_matches(&b, &msg, cut(&msg, d), &cur, TREC_DELTA_REBUILT);
		}
	}
	CHECK("keys of whole traces and chains of deltas (1-256 frames) are their frames' keys",
	      ok);

	make(&cur, 3, 5, seq++, 20, 0x500000);
	msg = cur;
	CHECK("an off-CPU wait (seq 0, no base) is keyed by its frames",
	      (msg.seq = 0, key_matches(&b, &msg, HDR + 20 * FR, &cur, TREC_DELTA_WHOLE)));
	msg = cur;
	msg.seq = seq + 5;
	cur.num_frames = 2;
	cur.frames[1] = (struct trec_frame){ .addr_or_line = TREC_ERR_DELTA_NO_BASE,
					     .kind = TREC_FRAME_UNKNOWN,
					     .flags = TREC_FRAME_F_ERROR };
	CHECK("a delta without its base is keyed as its leaf and error frame",
	      key_matches(&b, &msg, cut(&msg, 3), &cur, TREC_DELTA_NO_BASE));

	struct trec_stack_key k0, k;
	bool differ = true;

	make(&cur, 0, 5, 1, 40, 0x600000);
	k0 = trec_stack_key(cur.frames, 40, -1);
	for (uint32_t j = 0; j < 40; j++) {
		cur.frames[j].flags ^= 2;
		differ &= !same_key(k0, trec_stack_key(cur.frames, 40, -1));
		cur.frames[j].flags ^= 2;
	}
	CHECK("a frame changed in any block changes the key", differ);
	CHECK("... as does the kernel stack id", !same_key(k0, trec_stack_key(cur.frames, 40, 3)));
	CHECK("... and the frame count", !same_key(k0, trec_stack_key(cur.frames, 39, -1)));
	k = trec_stack_key(cur.frames, 40, -1);
	CHECK("the same frames, the same key", same_key(k0, k));
	trec_trace_bases_free(&b);
}

/* The writer holds a whole trace back until the next message is made
 * whole (consumer.c): it must stay as it was while the ring's space of
 * its message is reused by the next ones, a whole trace of the same CPU
 * among them. A delta of its CPU is made over it (the writer finishes it
 * before). */
static void test_held(void)
{
	struct trec_trace_bases b = { 0 };
	static struct trec_trace ring, a, c;
	const struct trec_trace *wa = NULL, *wc = NULL, *w = NULL;
	size_t la = 0, lc = 0, l = 0;
	bool same = true;

	make(&a, 0, 5, 10, 120, 1000);
	ring = a;
	trec_trace_delta_apply(&b, &ring, HDR + 120 * FR, &scratch, &wa, &la, NULL);
	/* The next message, over the same ring space: a whole trace of the
	 * same CPU and thread. */
	make(&ring, 0, 5, 11, 80, 5000);
	c = ring;
	CHECK("a whole trace after a whole trace of its CPU",
	      trec_trace_delta_apply(&b, &ring, HDR + 80 * FR, &scratch, &wc, &lc, NULL) ==
		      TREC_DELTA_WHOLE);
	CHECK("... leaves the first one whole, where it was given",
	      wa != &ring && la == HDR + 120 * FR && memcmp(wa, &a, la) == 0);
	CHECK("... and gives the second one as it is", lc == HDR + 80 * FR && memcmp(wc, &c, lc) == 0);
	/* Then a delta of the second, on other CPUs' traffic. */
	for (uint32_t cpu = 1; cpu < 4 && same; cpu++) {
		make(&ring, cpu, 9, 3, 30, 9000 + cpu);
		trec_trace_delta_apply(&b, &ring, HDR + 30 * FR, &scratch, &w, &l, NULL);
		same = memcmp(wc, &c, lc) == 0;
	}
	CHECK("... which other CPUs' traces leave as it is", same);
	make(&ring, 0, 5, 12, 80, 5000);
	ring.frames[0].addr_or_line = 77;
	CHECK("a delta of the second is made over it",
	      trec_trace_delta_apply(&b, &ring, cut(&ring, 1), &scratch, &w, &l, NULL) ==
			      TREC_DELTA_REBUILT &&
		      w == wc && w->frames[0].addr_or_line == 77 && w->frames[79].addr_or_line == 5079);
	trec_trace_bases_free(&b);
}

int main(void)
{
	test_rebuild();
	test_lost_base();
	test_hostile();
	test_keys();
	test_held();
	return failures != 0;
}
