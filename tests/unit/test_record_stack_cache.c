// SPDX-License-Identifier: MIT
/*
 * record/io/stack_cache.c with the writer's trec_write_sample_in_stack: a
 * stream of traces written through the cache,
 * as the writer thread does, must give the file trec_write_sample gives
 * for the same samples, byte for byte, across many chunk boundaries
 * (small chunks), while most samples take the cached paths, also with a
 * third of the stacks not kept; with a third of the samples not kept,
 * every sample still reads back with its frames. Then what the key
 * covers, another writer's chunks, and the writer's refusals.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/io/stack_cache.h"
#include "trec_format.h"
#include "trec_types.h"
#include "unit_check.h"

#define NPOOL 200
#define NSAMPLES 20000
#define CHUNK 32768

static struct trec_trace pool[NPOOL];

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Traces of 1-60 frames over a few files; some with a kernel stack id,
 * some with a kernel stack inline (kernel frames first, as BPF sends). */
static void make_pool(void)
{
	uint64_t seed = 99;

	for (unsigned i = 0; i < NPOOL; i++) {
		struct trec_trace *t = &pool[i];
		uint32_t n = 1 + (uint32_t)(rnd(&seed) % 40), nk = i % 7 == 0 ? 3 : 0;

		memset(t, 0, sizeof(*t));
		t->msg_type = TREC_MSG_TRACE;
		t->num_frames = (uint16_t)(n + nk);
		t->kernel_stack_id = i % 5 == 0 ? (int32_t)(i % 3) : -1;
		for (uint32_t j = 0; j < nk; j++)
			t->frames[j] = (struct trec_frame){ .addr_or_line = 0xffffffff81000000ULL + 0x40 * j,
							    .kind = TREC_FRAME_KERNEL, .flags = j ? 2 : 0 };
		for (uint32_t j = 0; j < n; j++)
			t->frames[nk + j] = (struct trec_frame){
				.file_id = 0x1000 + rnd(&seed) % 3,
				.addr_or_line = 0x400000 + rnd(&seed) % 0x10000,
				.kind = TREC_FRAME_NATIVE, .flags = j ? 2 : 0 };
	}
	/* Two traces that differ only in their kernel stack id. */
	pool[1] = pool[2];
	pool[1].kernel_stack_id = 7;
	pool[2].kernel_stack_id = 8;
}

static const struct trec_rec_frame kstacks[9][2] = {
	[0] = { { 0, 0xffffffff81100000ULL, 4, 0 }, { 0, 0xffffffff81200000ULL, 4, 2 } },
	[1] = { { 0, 0xffffffff81100010ULL, 4, 0 }, { 0, 0xffffffff81200000ULL, 4, 2 } },
	[2] = { { 0, 0xffffffff81100020ULL, 4, 0 }, { 0, 0xffffffff81200000ULL, 4, 2 } },
	[7] = { { 0, 0xffffffff81100070ULL, 4, 0 }, { 0, 0xffffffff81200000ULL, 4, 2 } },
	[8] = { { 0, 0xffffffff81100080ULL, 4, 0 }, { 0, 0xffffffff81200000ULL, 4, 2 } },
};

/* The sample of trace t, as the consumer builds it. */
static void to_sample(const struct trec_trace *t, unsigned i, struct trec_sample *s,
		      struct trec_rec_frame *f)
{
	uint32_t nk = 0;

	memset(s, 0, sizeof(*s));
	s->time_ns = 1000000ULL * i;
	s->pid = 100 + i % 3;
	s->tid = s->pid + (i / 7) % 2;
	s->cpu = i % 2;
	s->weight = 1;
	strcpy(s->comm, i % 11 ? "work" : "other");
	for (uint32_t j = 0; j < t->num_frames; j++)
		f[j] = (struct trec_rec_frame){ t->frames[j].file_id, t->frames[j].addr_or_line,
						t->frames[j].kind, t->frames[j].flags };
	while (nk < t->num_frames && f[nk].kind == TREC_FRAME_KERNEL)
		nk++;
	s->user_frames = f + nk;
	s->num_user_frames = t->num_frames - nk;
	if (t->kernel_stack_id >= 0) {
		s->kernel_frames = kstacks[t->kernel_stack_id];
		s->num_kernel_frames = 2;
	} else {
		s->kernel_frames = f;
		s->num_kernel_frames = nk;
	}
}

static uint8_t *file_bytes(int fd, size_t *len)
{
	uint8_t *buf;

	*len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(*len ? *len : 1);
	if (buf && pread(fd, buf, *len, 0) != (ssize_t)*len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The stream written plainly (cached = false) or through the cache. */
static uint64_t last_chunk; /* of the last stream's last sample */

enum keep_mode {
	KEEP_ALL,
	/* a third of the stacks not kept, as an interpreter's or a JIT's is
	 * not: the others must still give trec_write_sample's file */
	KEEP_BY_STACK,
	/* one sample in three not kept, whatever its stack (never so in
	 * trecord, where keeping depends on the frames alone): a stack the
	 * cache holds, added without the writer's index, is also written by
	 * trec_write_sample in the same chunk, a second entry */
	KEEP_BY_SAMPLE,
};

/* cached: through the cache, keeping stacks as mode says. */
static uint8_t *write_stream(bool cached, enum keep_mode mode, size_t *len, unsigned *hits)
{
	static struct trec_rec_frame f[TREC_MAX_FRAMES];
	struct trec_writer_opts o = { .chunk_bytes = CHUNK };
	struct trec_stack_cache sc = { 0 };
	struct trec_header h;
	struct trec_writer *w;
	int fd = memfd_create("stacks", 0), err = 0;
	uint64_t seed = 5;
	uint8_t *buf = NULL;

	*hits = 0;
	trec_header_init_host(&h);
	h.creation_time_ns = 1; /* the two files compare whole */
	w = trec_writer_open_fd(dup(fd), &h, &o);
	for (unsigned i = 0; w && i < NSAMPLES && !err; i++) {
		uint64_t r = rnd(&seed);
		unsigned p = (unsigned)((r % NPOOL) * (r % NPOOL) / NPOOL);
		const struct trec_trace *t = &pool[p];
		bool keep = mode == KEEP_ALL || (mode == KEEP_BY_STACK ? p % 3 : i % 3);
		struct trec_stack_key key = trec_stack_key(t->frames, t->num_frames,
							   t->kernel_stack_id);
		struct trec_sample s;
		bool is_new;

		to_sample(t, i, &s, f);
		if (!cached) {
			err = trec_write_sample(w, &s);
			continue;
		}
		err = trec_stack_cache_write_known(&sc, w, key, &s);
		if (err == 0)
			(*hits)++;
		else if (err == 1)
			err = trec_stack_cache_write_new(&sc, w, key, &s, keep, &is_new);
	}
	if (w)
		trec_writer_last_stack(w, &last_chunk, &(uint32_t){ 0 });
	if (w && !trec_writer_close(w) && !err)
		buf = file_bytes(fd, len);
	trec_stack_cache_free(&sc);
	close(fd);
	return buf;
}

static void test_same_file(void)
{
	size_t la = 0, lb = 0, lc = 0;
	unsigned hits_a, hits_b, hits_c;
	uint8_t *a = write_stream(false, KEEP_ALL, &la, &hits_a);
	uint8_t *b = write_stream(true, KEEP_ALL, &lb, &hits_b);
	uint8_t *c = write_stream(true, KEEP_BY_STACK, &lc, &hits_c);

	CHECK("both streams written", a && b);
	CHECK("through the cache: the same file, byte for byte",
	      a && b && la == lb && !memcmp(a, b, la));
	CHECK("a third of the stacks not kept: the same file too",
	      a && c && la == lc && !memcmp(a, c, la));
	CHECK("many chunks", (uint32_t)last_chunk >= 10);
	CHECK("most samples take the cached path", hits_b > NSAMPLES / 2);
	printf("   %u of %u samples cached, %u chunks, %zu bytes\n", hits_b, NSAMPLES,
	       (uint32_t)last_chunk + 1, lb);
	free(a);
	free(b);
	free(c);
}

/* The samples of a file, each as its frames' bytes, in order; NULL if
 * it does not read cleanly. */
static char **read_samples(const uint8_t *buf, size_t len, size_t *n)
{
	char errbuf[200], **v = calloc(NSAMPLES, sizeof(*v));
	int err = 0, rc;
	struct trec_reader *r = trec_reader_open_mem(buf, len, NULL, &err, errbuf, sizeof(errbuf));
	struct trec_record rec;

	*n = 0;
	while (r && v && (rc = trec_reader_next(r, &rec)) == 1) {
		const struct trec_sample *s = &rec.u.sample;
		size_t k = (s->num_kernel_frames + s->num_user_frames) * sizeof(struct trec_rec_frame);
		char *b;

		if (rec.type != TREC_REC_SAMPLE)
			continue;
		if (*n == NSAMPLES || !(b = malloc(k + 8)))
			break;
		memcpy(b, &s->num_user_frames, 4);
		memcpy(b + 4, &s->num_kernel_frames, 4);
		if (s->num_kernel_frames)
			memcpy(b + 8, s->kernel_frames,
			       s->num_kernel_frames * sizeof(*s->kernel_frames));
		if (s->num_user_frames)
			memcpy(b + 8 + s->num_kernel_frames * sizeof(*s->kernel_frames),
			       s->user_frames, s->num_user_frames * sizeof(*s->user_frames));
		v[(*n)++] = b;
	}
	if (r)
		trec_reader_close(r);
	return v;
}

static void test_mixed_keep(void)
{
	size_t la = 0, lb = 0, na = 0, nb = 0, same = 0;
	unsigned hits_a, hits_b;
	uint8_t *a = write_stream(false, KEEP_ALL, &la, &hits_a);
	uint8_t *b = write_stream(true, KEEP_BY_SAMPLE, &lb, &hits_b);
	char **sa = a ? read_samples(a, la, &na) : NULL, **sb = b ? read_samples(b, lb, &nb) : NULL;

	for (size_t i = 0; sa && sb && i < na && i < nb; i++) {
		uint32_t nu, nk;

		memcpy(&nu, sa[i], 4);
		memcpy(&nk, sa[i] + 4, 4);
		same += !memcmp(sa[i], sb[i], 8 + (nu + nk) * sizeof(struct trec_rec_frame));
	}
	CHECK("a third of the samples not kept: every sample reads back with its frames",
	      na == NSAMPLES && nb == NSAMPLES && same == NSAMPLES);
	printf("   %zu of %zu samples the same, %u cached; %zu bytes against %zu\n", same, na,
	       hits_b, lb, la);
	for (size_t i = 0; i < NSAMPLES; i++) {
		if (sa)
			free(sa[i]);
		if (sb)
			free(sb[i]);
	}
	free(sa);
	free(sb);
	free(a);
	free(b);
}

static void test_key(void)
{
	struct trec_trace t = pool[3];
	struct trec_stack_key k0 = trec_stack_key(t.frames, t.num_frames, -1), k;

	k = trec_stack_key(t.frames, t.num_frames, 0);
	CHECK("key covers the kernel stack id", k.lo != k0.lo || k.hi != k0.hi);
	t.frames[t.num_frames - 1].addr_or_line ^= 1;
	k = trec_stack_key(t.frames, t.num_frames, -1);
	CHECK("key covers the root frame", k.lo != k0.lo || k.hi != k0.hi);
	t = pool[3];
	k = trec_stack_key(t.frames, t.num_frames - 1, -1);
	CHECK("key covers the frame count", k.lo != k0.lo || k.hi != k0.hi);
}

/* Two writers at the same chunk number: the cache's index of one is
 * never taken for the other's (flight mode swaps writers). */
static void test_two_writers(void)
{
	static struct trec_rec_frame f[TREC_MAX_FRAMES];
	struct trec_stack_cache sc = { 0 };
	struct trec_header h;
	struct trec_sample s;
	struct trec_writer *a, *b;
	struct trec_stack_key k5 = trec_stack_key(pool[5].frames, pool[5].num_frames, -1);
	struct trec_stack_key k6 = trec_stack_key(pool[6].frames, pool[6].num_frames, -1);
	uint64_t ca, cb;
	uint32_t ia, ib;
	bool is_new;

	trec_header_init_host(&h);
	a = trec_writer_open_fd(memfd_create("a", 0), &h, NULL);
	b = trec_writer_open_fd(memfd_create("b", 0), &h, NULL);
	to_sample(&pool[6], 0, &s, f);
	CHECK("b: another stack first", b && trec_write_sample(b, &s) == 0);
	to_sample(&pool[5], 1, &s, f);
	CHECK("a: written whole, known after",
	      a && trec_stack_cache_write_known(&sc, a, k5, &s) == 1 &&
		      trec_stack_cache_write_new(&sc, a, k5, &s, true, &is_new) == 0 && is_new);
	trec_writer_last_stack(a, &ca, &ia);
	CHECK("a: then found", trec_stack_cache_write_known(&sc, a, k5, &s) == 0);
	CHECK("b, at the same chunk number: refused",
	      trec_stack_cache_write_known(&sc, b, k5, &s) == 1);
	trec_writer_last_stack(b, &cb, &ib);
	CHECK("the two tokens differ", cb != ca);
	CHECK("a's token is refused by b", trec_write_sample_in_stack(b, &s, ca, ia) == 1);
	CHECK("unknown key", trec_stack_cache_write_known(&sc, a, k6, &s) == 1);
	CHECK("kept == false: not known after",
	      trec_stack_cache_write_new(&sc, a, k6, &s, false, &is_new) == 0 &&
		      trec_stack_cache_write_known(&sc, a, k6, &s) == 1);
	CHECK("closed", !trec_writer_close(a) && !trec_writer_close(b));
	trec_stack_cache_free(&sc);
}

/* What the writer refuses: another chunk's index, an index it lacks, a
 * sample that does not fit the chunk. */
static void test_writer_refusals(void)
{
	static struct trec_rec_frame f[TREC_MAX_FRAMES];
	struct trec_writer_opts o = { .chunk_bytes = 1000 };
	struct trec_header h;
	struct trec_sample s;
	struct trec_writer *w;
	uint64_t seq, seq2;
	uint32_t idx, idx2;
	bool is_new;
	int fd = memfd_create("refuse", 0), rc;

	trec_header_init_host(&h);
	w = trec_writer_open_fd(fd, &h, &o);
	to_sample(&pool[5], 0, &s, f);
	CHECK("first sample written", w && trec_write_sample(w, &s) == 0);
	is_new = trec_writer_last_stack(w, &seq, &idx);
	CHECK("its stack is new", is_new);
	to_sample(&pool[5], 1, &s, f);
	CHECK("in its stack", trec_write_sample_in_stack(w, &s, seq, idx) == 0);
	is_new = trec_writer_last_stack(w, &seq2, &idx2);
	CHECK("... which is not new, and the same", !is_new && seq2 == seq && idx2 == idx);
	CHECK("an index the chunk lacks: not written",
	      trec_write_sample_in_stack(w, &s, seq, idx + 1) == 1);
	CHECK("another chunk: not written", trec_write_sample_in_stack(w, &s, seq + 1, idx) == 1);
	/* Fill the chunk with samples of the stack until one does not fit. */
	rc = 0;
	for (unsigned i = 2; i < 1000 && rc == 0; i++) {
		to_sample(&pool[5], i, &s, f);
		rc = trec_write_sample_in_stack(w, &s, seq, idx);
	}
	CHECK("a full chunk refuses the sample", rc == 1);
	CHECK("written whole, into the next chunk",
	      trec_write_sample(w, &s) == 0 && trec_writer_last_stack(w, &seq2, &idx2) &&
		      seq2 == seq + 1 && idx2 == 0);
	CHECK("the ended chunk's index is refused",
	      trec_write_sample_in_stack(w, &s, seq, idx) == 1);
	CHECK("closed cleanly", w && trec_writer_close(w) == 0);
}

int main(void)
{
	make_pool();
	test_same_file();
	test_mixed_keep();
	test_key();
	test_two_writers();
	test_writer_refusals();
	return failures != 0;
}
