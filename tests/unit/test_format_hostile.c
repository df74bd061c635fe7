// SPDX-License-Identifier: MIT
/*
 * The reader against damaged and hostile input: truncation at every byte
 * offset, single bit flips everywhere (with and without force), files that
 * are not recordings, other versions, and hand-crafted chunks that break
 * each limit of FORMAT.md §7. Hand-crafted bytes are built here from the
 * spec (own varint/CRC/zstd calls), not with the library's encoder.
 */
#include <errno.h>
#include <zlib.h>
#include <zstd.h>

#include "format_fixture.h"

/* Chunk-local record types (FORMAT.md §6.10, §6.11). */
#define SPEC_REC_STACK 32
#define SPEC_REC_THREAD 33

struct warns {
	int n;
	int skipped; /* "skipping corrupt chunk" warnings */
	char last[320];
};

static void on_warn(void *ctx, const char *msg)
{
	struct warns *w = ctx;

	w->n++;
	w->skipped += strstr(msg, "skipping corrupt chunk") != NULL;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* Result of reading a whole buffer. */
struct outcome {
	int open_err;          /* 0 if it opened */
	char msg[256];         /* open or read error */
	int rc;                /* last trec_reader_next result */
	unsigned nrecs;        /* records returned */
	unsigned matches;      /* leading records equal to the expected ones */
	struct warns w;
	struct trec_reader_stats st;
};

/*
 * Reads buf; expect[] (may be NULL) lists the fx_recs indices the records
 * should equal, in order.
 */
static void read_all(const uint8_t *buf, size_t len, unsigned flags, const unsigned *expect,
		     unsigned nexpect, struct outcome *o)
{
	struct trec_reader_opts ro = { .flags = flags, .warn = on_warn };
	struct trec_record rec;
	struct trec_reader *r;
	char why[200];
	int matching = 1;

	memset(o, 0, sizeof(*o));
	ro.warn_ctx = &o->w;
	r = trec_reader_open_mem(buf, len, &ro, &o->open_err, o->msg, sizeof(o->msg));
	if (!r)
		return;
	while ((o->rc = trec_reader_next(r, &rec)) == 1) {
		/* Touch every byte handed out, so ASan sees any bad pointer. */
		if (rec.type == TREC_REC_SAMPLE) {
			volatile uint64_t sum = 0;
			for (uint32_t i = 0; i < rec.u.sample.num_user_frames; i++)
				sum += rec.u.sample.user_frames[i].addr;
			for (uint32_t i = 0; i < rec.u.sample.num_kernel_frames; i++)
				sum += rec.u.sample.kernel_frames[i].addr;
		}
		if (expect && matching && o->nrecs < nexpect &&
		    fx_equal(&fx_recs[expect[o->nrecs]], &rec, why, sizeof(why)))
			o->matches++;
		else
			matching = 0;
		o->nrecs++;
	}
	if (o->rc < 0)
		snprintf(o->msg, sizeof(o->msg), "%s", trec_reader_error(r));
	trec_reader_stats(r, &o->st);
	trec_reader_close(r);
}

/* ---- the multi-chunk fixture file and its chunk layout ------------------ */

static uint8_t *file;
static size_t file_len;
static size_t chunk_off[256], nchunks; /* chunk_off[nchunks] = file_len */
static unsigned rec_chunk[64];         /* chunk index of fx_recs[i] */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int setup(void)
{
	struct trec_writer_opts o = { .chunk_bytes = 200 };
	struct trec_reader *r;
	struct trec_record rec;
	unsigned i = 0;
	size_t off;

	fx_init();
	file = fx_write_mem(&o, &file_len);
	if (!file)
		return 0;
	for (off = 256, nchunks = 0; off + 32 <= file_len && nchunks < 255; nchunks++) {
		chunk_off[nchunks] = off;
		off += 32 + le32(file + off + 8);
	}
	chunk_off[nchunks] = file_len;
	r = trec_reader_open_mem(file, file_len, NULL, NULL, NULL, 0);
	while (r && trec_reader_next(r, &rec) == 1 && i < fx_nrecs) {
		unsigned c = 0;
		while (c < nchunks && chunk_off[c] != rec.file_offset)
			c++;
		rec_chunk[i++] = c;
	}
	trec_reader_close(r);
	return off == file_len && nchunks >= 4 && i == fx_nrecs;
}

static void test_truncation(void)
{
	unsigned expect[64], bad = 0, crashes_avoided = 0;
	struct outcome o;

	for (unsigned i = 0; i < fx_nrecs; i++)
		expect[i] = i;
	for (size_t len = 0; len < file_len; len++) {
		read_all(file, len, 0, expect, fx_nrecs, &o);
		crashes_avoided++;
		if (len < 256) {
			if (!o.open_err || !o.msg[0]) {
				fprintf(stderr, "truncated to %zu: header accepted\n", len);
				bad++;
			}
			continue;
		}
		/* Every record of a chunk that ends at or before len, nothing else. */
		unsigned want = 0, c = 0;
		while (want < fx_nrecs && chunk_off[rec_chunk[want] + 1] <= len)
			want++;
		while (chunk_off[c] < len)
			c++;
		int boundary = chunk_off[c] == len;
		if (o.open_err || o.rc != 0 || o.nrecs != want || o.matches != want ||
		    o.st.truncated == boundary || (o.w.n == 1) == boundary ||
		    (!boundary && !strstr(o.w.last, "file truncated at offset"))) {
			fprintf(stderr, "truncated to %zu: rc %d recs %u/%u warn %d '%s' %s\n", len,
				o.rc, o.nrecs, want, o.w.n, o.w.last, o.msg);
			bad++;
		}
	}
	printf("truncation: %zu offsets of a %zu-chunk file\n", file_len, nchunks);
	fx_check(crashes_avoided == file_len && bad == 0,
		 "truncation at every byte offset: complete chunks returned, then warning + EOF");

	/* The offset in the warning is the incomplete chunk's. */
	read_all(file, chunk_off[2] + 40, 0, NULL, 0, &o);
	char want_msg[80];
	snprintf(want_msg, sizeof(want_msg), "file truncated at offset %zu: last chunk incomplete",
		 chunk_off[2]);
	fx_check(!strcmp(o.w.last, want_msg), "truncation warning names the chunk offset");
}

static void test_bit_flips(void)
{
	uint8_t *copy = malloc(file_len);
	unsigned expect[64], undetected = 0, force_bad = 0, garbage = 0, flips = 0;
	uint64_t seed = 42;
	struct outcome o;

	if (!copy)
		return;
	for (size_t pos = 0; pos < file_len; pos++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned bit = (unsigned)(seed >> 61);
		unsigned dmg = 0, nexp = 0;

		memcpy(copy, file, file_len);
		copy[pos] ^= (uint8_t)(1u << bit);
		flips++;
		while (dmg < nchunks && chunk_off[dmg + 1] <= pos)
			dmg++;
		for (unsigned i = 0; i < fx_nrecs; i++)
			expect[i] = i;
		/* Without force: detected, and nothing wrong was returned first. */
		read_all(copy, file_len, 0, expect, fx_nrecs, &o);
		if (!o.open_err && o.rc == 0) {
			fprintf(stderr, "flip at %zu bit %u not detected\n", pos, bit);
			undetected++;
		}
		if (o.matches != o.nrecs)
			garbage++;
		if (!o.open_err && o.rc < 0 && !strstr(o.msg, "corrupt chunk at offset"))
			garbage++;
		if (pos < 256)
			continue;
		/* With force: every other chunk's records come back, in order. */
		for (unsigned i = 0; i < fx_nrecs; i++)
			if (rec_chunk[i] != dmg)
				expect[nexp++] = i;
		read_all(copy, file_len, TREC_READ_FORCE, expect, nexp, &o);
		if (o.open_err || o.rc != 0 || o.nrecs != nexp || o.matches != nexp ||
		    o.st.bad_chunks != 1 || o.w.skipped != 1) {
			fprintf(stderr, "force, flip at %zu (chunk %u): rc %d recs %u/%u bad %llu '%s'\n",
				pos, dmg, o.rc, o.nrecs, nexp, (unsigned long long)o.st.bad_chunks,
				o.w.last);
			force_bad++;
		}
	}
	printf("bit flips: %u positions\n", flips);
	fx_check(undetected == 0, "every single bit flip is detected (CRCs)");
	fx_check(garbage == 0, "no damaged record is returned; errors name the chunk offset");
	fx_check(force_bad == 0, "with force, one bad chunk is skipped and all later ones read");

	/* A zeroed stretch over two chunk boundaries: force resynchronizes. */
	memcpy(copy, file, file_len);
	memset(copy + chunk_off[1] + 10, 0, chunk_off[3] - chunk_off[1]);
	read_all(copy, file_len, TREC_READ_FORCE, NULL, 0, &o);
	unsigned want = 0;
	for (unsigned i = 0; i < fx_nrecs; i++)
		want += rec_chunk[i] == 0 || rec_chunk[i] > 3;
	fx_check(o.rc == 0 && o.nrecs == want && o.st.bad_chunks == 1,
		 "force resynchronizes after a zeroed region");
	free(copy);
}

/* ---- hand-crafted files --------------------------------------------------- */

struct bb {
	uint8_t d[4096];
	size_t n;
	unsigned recs; /* records framed by bb_rec (or declared by hand) */
	uint32_t seq;  /* the next chunk's sequence number */
};

static void bb_put(struct bb *b, const void *p, size_t n)
{
	if (n && b->n + n <= sizeof(b->d)) {
		memcpy(b->d + b->n, p, n);
		b->n += n;
	}
}

static void bb_u8(struct bb *b, uint8_t v)
{
	bb_put(b, &v, 1);
}

static void bb_var(struct bb *b, uint64_t v)
{
	do {
		bb_u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

static void bb_le(struct bb *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		bb_u8(b, (uint8_t)(v >> (8 * i)));
}

/* count varints of value v (each one byte for v < 128). */
static void bb_vars(struct bb *b, uint64_t v, int count)
{
	while (count--)
		bb_var(b, v);
}

/* A record: type, length, payload. */
static void bb_rec(struct bb *b, uint32_t type, const struct bb *payload)
{
	bb_var(b, type);
	bb_var(b, payload->n);
	bb_put(b, payload->d, payload->n);
	b->recs++;
}

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), p, (uInt)n);
}

/* Header of version major.minor, header_size hsize (>= 256). */
static void craft_header(struct bb *f, unsigned major, unsigned minor, unsigned hsize)
{
	f->n = 0;
	f->seq = 0;
	bb_put(f, "\x89TREC\r\n\x1a", 8);
	bb_le(f, major, 2);
	bb_le(f, minor, 2);
	bb_le(f, hsize, 4);
	bb_le(f, 0, 4);
	bb_le(f, 4096, 4);
	bb_le(f, 1, 8);
	bb_le(f, 1, 4);
	while (f->n < hsize - 4)
		bb_u8(f, 0);
	bb_le(f, crc(f->d, f->n), 4);
}

/* A chunk; ulen_override/nrec_override replace the true values if != ~0. */
static void craft_chunk_raw(struct bb *f, unsigned type, const void *z, size_t zlen,
			    uint32_t ulen, uint32_t nrec)
{
	size_t h = f->n;

	bb_put(f, "TRCK", 4);
	bb_le(f, type, 2);
	bb_le(f, 0, 2);
	bb_le(f, zlen, 4);
	bb_le(f, ulen, 4);
	bb_le(f, nrec, 4);
	bb_le(f, f->seq++, 4);
	bb_le(f, crc(z, zlen), 4);
	bb_le(f, crc(f->d + h, 28), 4);
	bb_put(f, z, zlen);
}

static void craft_chunk(struct bb *f, const struct bb *body, uint32_t nrec)
{
	uint8_t z[4096];
	size_t zlen = ZSTD_compress(z, sizeof(z), body->d, body->n, 1);

	craft_chunk_raw(f, 1, z, zlen, (uint32_t)body->n, nrec);
}

/* A valid body: one SUMMARY record (start 1, end 2, samples 3, lost 4). */
static void summary_body(struct bb *body, const uint8_t *extra, size_t nextra)
{
	struct bb p = { .n = 0 };

	bb_var(&p, 1);
	bb_var(&p, 2);
	bb_var(&p, 3);
	bb_var(&p, 4);
	bb_var(&p, 1); /* exit_status -1 */
	bb_var(&p, 0);
	bb_put(&p, extra, nextra);
	body->n = body->recs = 0;
	bb_rec(body, TREC_REC_SUMMARY, &p);
}

static int read_summary_ok(const struct bb *f, unsigned expect_recs)
{
	struct outcome o;

	read_all(f->d, f->n, 0, NULL, 0, &o);
	if (o.open_err || o.rc)
		fprintf(stderr, "unexpected error: %s\n", o.msg);
	return !o.open_err && o.rc == 0 && o.nrecs == expect_recs;
}

/* Reads f and returns 1 if it fails with a message containing what. */
static int read_fails(const struct bb *f, const char *what)
{
	struct outcome o;

	read_all(f->d, f->n, 0, NULL, 0, &o);
	if ((!o.open_err && o.rc == 0) || !strstr(o.msg, what)) {
		fprintf(stderr, "expected failure '%s', got rc %d recs %u: '%s'\n", what, o.rc,
			o.nrecs, o.msg);
		return 0;
	}
	return 1;
}

static void test_not_recordings(void)
{
	static struct bb f;
	struct outcome o;

	read_all(NULL, 0, 0, NULL, 0, &o);
	fx_check(o.open_err == -EBADMSG && strstr(o.msg, "empty file"), "zero-length file: clear error");
	read_all((const uint8_t *)"", 0, TREC_READ_FORCE, NULL, 0, &o);
	fx_check(o.open_err && strstr(o.msg, "not a trec recording"), "zero-length file with force");

	f.n = 0;
	for (int i = 0; i < 40; i++)
		bb_put(&f, "# not a recording\n", 18);
	read_all(f.d, f.n, TREC_READ_FORCE, NULL, 0, &o);
	fx_check(o.open_err && !strcmp(o.msg, "not a trec recording (bad magic)"),
		 "wrong magic: 'not a trec recording (bad magic)'");
	read_all(file, 5, 0, NULL, 0, &o);
	fx_check(o.open_err && strstr(o.msg, "bad magic"), "5-byte prefix: bad magic");

	craft_header(&f, 2, 0, 256);
	read_all(f.d, f.n, TREC_READ_FORCE, NULL, 0, &o);
	fx_check(o.open_err == -EPROTONOSUPPORT && strstr(o.msg, "version 2.0") &&
		 strstr(o.msg, "newer"), "newer major version: clear error");
	craft_header(&f, 0, 9, 256);
	read_all(f.d, f.n, 0, NULL, 0, &o);
	fx_check(o.open_err == -EPROTONOSUPPORT, "major version 0 refused");

	/* A newer minor version with a bigger header is read. */
	struct bb body;
	craft_header(&f, 1, 7, 300);
	summary_body(&body, NULL, 0);
	craft_chunk(&f, &body, 1);
	fx_check(read_summary_ok(&f, 1), "newer minor version with a 300-byte header is read");

	craft_header(&f, 1, 0, 128);
	fx_check(read_fails(&f, "header size 128 out of range"), "header size below 256 refused");
	craft_header(&f, 1, 0, 256);
	f.d[100] ^= 1;
	fx_check(read_fails(&f, "corrupt file header (checksum mismatch)"), "header CRC checked");
	read_all(f.d, f.n, TREC_READ_FORCE, NULL, 0, &o);
	fx_check(!o.open_err && o.rc == 0 && o.w.n == 1, "header CRC: force warns and reads on");
	craft_header(&f, 1, 0, 256);
	fx_check(read_summary_ok(&f, 0), "header without chunks: empty recording");
}

/* Chunk bodies that each break one rule of FORMAT.md §4-§7. */
static const char *const bad_body_names[] = {
	"record length past the body",
	"11-byte varint",
	"varint overflowing 64 bits",
	"record type over 32 bits",
	"string length past the payload",
	"huge element count",
	"string with a NUL",
	"build id over 64 bytes",
	"comm over 15 bytes",
	"exit code over 32 bits",
	"mapping end past 2^64",
	"stack with 4097 frames",
	"stack frame cut short",
	"sample without stack entry",
	"sample index past the tables",
	"truncated summary payload",
};

static void bad_body(unsigned i, struct bb *b)
{
	struct bb q = { .n = 0 };

	switch (i) {
	case 0:
		b->recs = 1;
		bb_var(b, 8);
		bb_var(b, 100);
		bb_u8(b, 0);
		break;
	case 1:
		b->recs = 1;
		bb_put(b, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11);
		break;
	case 2:
		b->recs = 1;
		bb_var(b, 8);
		bb_put(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
		break;
	case 3:
		b->recs = 1;
		bb_var(b, 1ULL << 32);
		bb_var(b, 0);
		break;
	case 4:
		bb_var(&q, 1);
		bb_var(&q, 1000);
		bb_put(&q, "ab", 2);
		bb_rec(b, TREC_REC_META, &q);
		break;
	case 5:
		bb_var(&q, 1u << 31);
		bb_rec(b, TREC_REC_META, &q);
		break;
	case 6:
		bb_var(&q, 1);
		bb_var(&q, 3);
		bb_put(&q, "a\0b", 3);
		bb_var(&q, 0);
		bb_rec(b, TREC_REC_META, &q);
		break;
	case 7:
		bb_vars(&q, 1, 6);
		bb_var(&q, 0);
		bb_var(&q, 65);
		bb_vars(&q, 1, 65);
		bb_var(&q, 0);
		bb_rec(b, TREC_REC_FILE, &q);
		break;
	case 8:
		bb_vars(&q, 1, 6);
		bb_var(&q, 16);
		bb_put(&q, "0123456789abcdef", 16);
		bb_var(&q, 0);
		bb_rec(b, TREC_REC_PID_EVENT, &q);
		break;
	case 9:
		bb_vars(&q, 1, 5);
		bb_var(&q, 1ULL << 33);
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_rec(b, TREC_REC_PID_EVENT, &q);
		break;
	case 10:
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_var(&q, 1);
		bb_var(&q, UINT64_MAX);
		bb_var(&q, 2);
		bb_vars(&q, 0, 10);
		bb_rec(b, TREC_REC_MAPPINGS, &q);
		break;
	case 11:
		bb_var(&q, 4097);
		bb_var(&q, 0);
		bb_rec(b, SPEC_REC_STACK, &q);
		break;
	case 12:
		bb_var(&q, 0);
		bb_var(&q, 2);
		bb_u8(&q, 3);
		bb_u8(&q, 0);
		bb_var(&q, 1);
		bb_var(&q, 2);
		bb_u8(&q, 3);
		bb_rec(b, SPEC_REC_STACK, &q);
		break;
	case 13:
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_rec(b, SPEC_REC_THREAD, &q);
		q.n = 0;
		bb_vars(&q, 0, 6);
		bb_rec(b, TREC_REC_SAMPLE, &q);
		break;
	case 14:
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_rec(b, SPEC_REC_THREAD, &q);
		bb_rec(b, SPEC_REC_STACK, &q);
		q.n = 0;
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_var(&q, 1);
		bb_var(&q, 0);
		bb_var(&q, 0);
		bb_var(&q, 1);
		bb_rec(b, TREC_REC_SAMPLE, &q);
		break;
	case 15:
		bb_var(&q, 1);
		bb_var(&q, 2);
		bb_rec(b, TREC_REC_SUMMARY, &q);
		break;
	}
}

static void test_crafted_chunks(void)
{
	static struct bb f;
	struct bb body, p;
	uint8_t z[4096];

	/* Unknown chunk type, unknown record type, longer payload: skipped. */
	craft_header(&f, 1, 0, 256);
	craft_chunk_raw(&f, 77, "not zstd at all", 15, 1234, 5);
	summary_body(&body, (const uint8_t *)"future", 6);
	p.n = 0;
	bb_put(&p, "\x01\x02\x03", 3);
	bb_rec(&body, 31, &p);  /* unknown returned-record type */
	bb_rec(&body, 60, &p);  /* unknown chunk-structure type */
	bb_rec(&body, 1u << 31, &p);
	craft_chunk(&f, &body, 4);
	fx_check(read_summary_ok(&f, 1),
		 "unknown chunk type, unknown record types and appended fields are skipped");

	/* The first sample of a reader has an empty stack (clang UBSan: NULL + 0). */
	craft_header(&f, 1, 0, 256);
	body.n = body.recs = 0;
	p.n = 0;
	bb_vars(&p, 0, 3);
	bb_rec(&body, SPEC_REC_THREAD, &p);
	p.n = 0;
	bb_vars(&p, 0, 2);
	bb_rec(&body, SPEC_REC_STACK, &p);
	p.n = 0;
	bb_vars(&p, 0, 5);
	bb_var(&p, 1);
	bb_rec(&body, TREC_REC_SAMPLE, &p);
	craft_chunk(&f, &body, body.recs);
	fx_check(read_summary_ok(&f, 1), "a first sample with no frames at all is read");

	/* Chunk lengths over the limits, with a valid header CRC. */
	craft_header(&f, 1, 0, 256);
	summary_body(&body, NULL, 0);
	size_t zlen = ZSTD_compress(z, sizeof(z), body.d, body.n, 1);
	craft_chunk_raw(&f, 1, z, zlen, (64u << 20) + 1, 1);
	fx_check(read_fails(&f, "exceed the limits"), "uncompressed length over 64 MiB refused");
	craft_header(&f, 1, 0, 256);
	craft_chunk_raw(&f, 1, z, zlen, (uint32_t)body.n + 1, 1);
	fx_check(read_fails(&f, "bad zstd frame header"), "frame size != uncompressed_len refused");

	/* A zstd frame that does not declare its size. */
	{
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		ZSTD_outBuffer out = { z, sizeof(z), 0 };
		ZSTD_inBuffer in = { body.d, body.n, 0 };

		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
		ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end);
		ZSTD_freeCCtx(cc);
		craft_header(&f, 1, 0, 256);
		craft_chunk_raw(&f, 1, z, out.pos, (uint32_t)body.n, 1);
		fx_check(read_fails(&f, "bad zstd frame header"), "frame without content size refused");
	}
	/* Two frames in one chunk. */
	zlen = ZSTD_compress(z, sizeof(z) / 2, body.d, body.n, 1);
	memcpy(z + zlen, z, zlen);
	craft_header(&f, 1, 0, 256);
	craft_chunk_raw(&f, 1, z, 2 * zlen, (uint32_t)body.n, 1);
	fx_check(read_fails(&f, "not exactly one zstd frame"), "trailing second frame refused");

	/* Garbage that passes the CRC but is not zstd. */
	craft_header(&f, 1, 0, 256);
	craft_chunk_raw(&f, 1, "\x28\xb5\x2f\xfd garbage garbage", 20, 10, 1);
	fx_check(read_fails(&f, "corrupt chunk at offset 256"), "invalid zstd refused, offset named");

	craft_header(&f, 1, 0, 256);
	craft_chunk(&f, &body, 2);
	fx_check(read_fails(&f, "record count 1, header says 2"), "record count mismatch refused");

	int all = 1;
	for (unsigned i = 0; i < sizeof(bad_body_names) / sizeof(bad_body_names[0]); i++) {
		body.n = body.recs = 0;
		bad_body(i, &body);
		craft_header(&f, 1, 0, 256);
		craft_chunk(&f, &body, body.recs);
		summary_body(&body, NULL, 0);
		craft_chunk(&f, &body, 1);  /* a good chunk after the bad one */
		char what[120];
		snprintf(what, sizeof(what), "%s refused", bad_body_names[i]);
		int ok = read_fails(&f, "corrupt chunk at offset 256");
		struct outcome o;
		read_all(f.d, f.n, TREC_READ_FORCE, NULL, 0, &o);
		ok = ok && o.rc == 0 && o.st.bad_chunks == 1 && o.st.records_by_type[TREC_REC_SUMMARY] == 1;
		all &= fx_check(ok, what);
	}
	fx_check(all, "every crafted limit violation is refused; force reads the next chunk");
}

int main(void)
{
	if (!fx_check(setup(), "multi-chunk fixture written"))
		return 1;
	test_truncation();
	test_bit_flips();
	test_not_recordings();
	test_crafted_chunks();
	free(file);
	return fx_failures ? 1 : 0;
}
