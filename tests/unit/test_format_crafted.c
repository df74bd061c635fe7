// SPDX-License-Identifier: MIT
/*
 * The reader against hand-crafted hostile files: files that are not
 * recordings, other versions, and chunks that break each limit of
 * FORMAT.md §7. The bytes are built here from the spec (own varint/CRC/
 * zstd calls), not with the library's encoder.
 */
#include "format_hostile_read.h"

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
	craft_header(&f, 1, 0, 128);
	read_all(f.d, 5, 0, NULL, 0, &o);
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
	test_not_recordings();
	test_crafted_chunks();
	return fx_failures ? 1 : 0;
}
