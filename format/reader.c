// SPDX-License-Identifier: MIT
/*
 * The .tr reader: one chunk in memory at a time (compressed input and
 * decompressed body, each bounded by FORMAT.md §7), records decoded lazily
 * from the body. Input is a memory buffer or a file read with pread(2), so
 * memory stays bounded whatever the file size.
 *
 * Damage handling (FORMAT.md §8): a file that ends inside a chunk is
 * truncated — every complete chunk is returned, then a warning and EOF.
 * A corrupt chunk is an error naming its offset; with TREC_READ_FORCE it
 * is a warning, and reading resumes at the next valid chunk header.
 * Chunk sequence numbers and the SUMMARY's sample count catch what the
 * CRCs cannot (reader_check.h): duplicates are skipped, the rest warned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "reader_check.h"
#include "records.h"

#define RESYNC_WINDOW (64u << 10)

struct trec_reader {
	/* input: mem != NULL, or fd >= 0 with chunks pread into in */
	const uint8_t *mem;
	int fd;
	uint64_t size;
	struct trec_buf in;

	struct trec_header hdr;
	unsigned flags;
	trec_warn_fn warn;
	void *warn_ctx;
	int failed;      /* sticky error of trec_reader_next */
	char err[256];

	uint64_t off;    /* where the next chunk header is expected */
	/* the current chunk */
	int in_chunk;
	uint64_t chunk_off;
	struct trec_buf body;
	size_t pos;      /* next record in body */
	uint32_t nrec, nrec_seen;
	struct trec_chunk_tables tables;
	struct trec_scratch scratch;
	ZSTD_DCtx *dctx;

	struct trec_read_checks checks; /* reader_check.c */

	struct trec_reader_stats st;
};

static void warnf(struct trec_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warnf(struct trec_reader *r, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->warn)
		r->warn(r->warn_ctx, msg);
	else
		fprintf(stderr, "trec: warning: %s\n", msg);
}

/* len bytes at off (caller checked off + len <= size). */
static int read_at(struct trec_reader *r, uint64_t off, size_t len, const uint8_t **out)
{
	size_t got = 0;

	if (r->mem) {
		*out = r->mem + off;
		return 0;
	}
	r->in.len = 0;
	if (trec_buf_reserve(&r->in, len))
		return -ENOMEM;
	while (got < len) {
		ssize_t n = pread(r->fd, r->in.data + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under us */
		got += (size_t)n;
	}
	*out = r->in.data;
	return 0;
}

static int fail(struct trec_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct trec_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->failed = err;
	return err;
}

/* Sets r->off at the first valid chunk header at or after from, or EOF. */
static int resync(struct trec_reader *r, uint64_t from)
{
	uint64_t p = from;

	while (p < r->size && r->size - p >= TREC_CHUNK_HDR_SIZE) {
		size_t n = r->size - p < RESYNC_WINDOW ? (size_t)(r->size - p) : RESYNC_WINDOW;
		const uint8_t *buf;
		struct trec_chunk_hdr ch;
		int err = read_at(r, p, n, &buf);

		if (err)
			return fail(r, err, "read error at offset %llu: %s",
				    (unsigned long long)p, strerror(-err));
		for (size_t i = 0; i + TREC_CHUNK_HDR_SIZE <= n; i++) {
			if (buf[i] == TREC_CHUNK_MAGIC[0] && !trec_chunk_hdr_decode(buf + i, &ch)) {
				r->off = p + i;
				return 0;
			}
		}
		p += n - TREC_CHUNK_HDR_SIZE + 1;
	}
	r->off = r->size;
	return 0;
}

/*
 * A damaged chunk at off. Without FORCE: the error. With FORCE: a warning,
 * then continue at the next chunk header found from resume_from.
 */
static int corrupt(struct trec_reader *r, uint64_t off, uint64_t resume_from,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int corrupt(struct trec_reader *r, uint64_t off, uint64_t resume_from,
		   const char *fmt, ...)
{
	char why[200];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	r->st.bad_chunks++;
	r->in_chunk = 0;
	if (!(r->flags & TREC_READ_FORCE))
		return fail(r, -EBADMSG, "corrupt chunk at offset %llu: %s",
			    (unsigned long long)off, why);
	err = resync(r, resume_from);
	if (err)
		return err;
	if (r->off < r->size)
		warnf(r, "skipping corrupt chunk at offset %llu: %s; resuming at offset %llu",
		      (unsigned long long)off, why, (unsigned long long)r->off);
	else
		warnf(r, "skipping corrupt chunk at offset %llu: %s; no valid chunk after it",
		      (unsigned long long)off, why);
	return 0;
}

/* Decompresses and checks the chunk whose valid header is ch at off. */
static int open_chunk(struct trec_reader *r, uint64_t off, const struct trec_chunk_hdr *ch)
{
	uint64_t end = off + TREC_CHUNK_HDR_SIZE + ch->clen;
	const uint8_t *z;
	unsigned long long fcs;
	size_t n;
	int err = read_at(r, off + TREC_CHUNK_HDR_SIZE, ch->clen, &z);

	if (err)
		return fail(r, err, "read error at offset %llu: %s",
			    (unsigned long long)off, strerror(-err));
	if (trec_crc32(z, ch->clen) != ch->body_crc)
		return corrupt(r, off, end, "body checksum mismatch");
	/* One frame, with a declared size equal to ulen: bounds the output. */
	fcs = ZSTD_getFrameContentSize(z, ch->clen);
	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR || fcs != ch->ulen)
		return corrupt(r, off, end, "bad zstd frame header");
	if (ZSTD_findFrameCompressedSize(z, ch->clen) != ch->clen)
		return corrupt(r, off, end, "body is not exactly one zstd frame");
	r->body.len = 0;
	if (trec_buf_reserve(&r->body, ch->ulen ? ch->ulen : 1))
		return fail(r, -ENOMEM, "out of memory for a %u byte chunk", ch->ulen);
	n = ZSTD_decompressDCtx(r->dctx, r->body.data, ch->ulen, z, ch->clen);
	if (ZSTD_isError(n) || n != ch->ulen)
		return corrupt(r, off, end, "zstd: %s",
			       ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short body");
	r->body.len = n;
	r->pos = 0;
	r->nrec = ch->nrec;
	r->nrec_seen = 0;
	r->chunk_off = off;
	r->tables.stacks.len = r->tables.threads.len = 0;
	r->tables.nstacks = r->tables.nthreads = 0;
	r->tables.prev_time = 0;
	r->in_chunk = 1;
	r->off = end;
	r->st.chunks++;
	return 0;
}

/* The checks' warnings go where the reader's go. */
static void check_warn(void *ctx, const char *msg)
{
	warnf(ctx, "%s", msg);
}

/* Positions on the next records chunk: 1, 0 at EOF, or < 0. */
static int next_chunk(struct trec_reader *r)
{
	while (!r->failed) {
		uint64_t off = r->off, left = r->size - off;
		struct trec_chunk_hdr ch;
		const uint8_t *h;
		int err;

		if (left == 0)
			return 0;
		if (left < TREC_CHUNK_HDR_SIZE)
			goto truncated;
		err = read_at(r, off, TREC_CHUNK_HDR_SIZE, &h);
		if (err)
			return fail(r, err, "read error at offset %llu: %s",
				    (unsigned long long)off, strerror(-err));
		if (trec_chunk_hdr_decode(h, &ch)) {
			err = corrupt(r, off, off + 1, "bad chunk header (magic or checksum)");
		} else if (ch.clen > TREC_MAX_CHUNK_CLEN || ch.ulen > TREC_MAX_CHUNK_ULEN) {
			err = corrupt(r, off, off + 1, "chunk lengths %u/%u exceed the limits",
				      ch.clen, ch.ulen);
		} else if (ch.clen > left - TREC_CHUNK_HDR_SIZE) {
			goto truncated;
		} else if (trec_check_chunk(&r->checks, &r->st, off, ch.seq)) {
			r->off = off + TREC_CHUNK_HDR_SIZE + ch.clen; /* a duplicate */
			continue;
		} else if (ch.type != TREC_CHUNK_RECORDS) {
			/* A later version's chunk type: skip it by its length. */
			r->st.skipped_chunks++;
			r->off = off + TREC_CHUNK_HDR_SIZE + ch.clen;
			continue;
		} else {
			err = open_chunk(r, off, &ch);
			if (!err && r->in_chunk)
				return 1;
		}
		if (err)
			return err;
	}
	return r->failed;
truncated:
	r->st.truncated = 1;
	warnf(r, "file truncated at offset %llu: last chunk incomplete",
	      (unsigned long long)r->off);
	r->off = r->size;
	return 0;
}

int trec_reader_next(struct trec_reader *r, struct trec_record *rec)
{
	while (!r->failed) {
		if (!r->in_chunk) {
			int rc = next_chunk(r);

			if (rc == 0)
				trec_check_end(&r->checks, &r->st);
			if (rc <= 0)
				return rc;
		}
		if (r->pos == r->body.len) {
			r->in_chunk = 0;
			if (r->nrec_seen != r->nrec &&
			    corrupt(r, r->chunk_off, r->off, "record count %u, header says %u",
				    r->nrec_seen, r->nrec))
				return r->failed;
			continue;
		}

		struct trec_cur c = { r->body.data + r->pos, r->body.data + r->body.len, 0 };
		uint32_t type = trec_cur_varint32(&c);
		uint64_t len = trec_cur_varint(&c);

		if (c.bad || len > trec_cur_left(&c)) {
			if (corrupt(r, r->chunk_off, r->off, "bad record framing at body offset %zu",
				    r->pos))
				return r->failed;
			continue;
		}
		size_t rec_off = r->pos;
		r->pos = (size_t)(c.p - r->body.data) + (size_t)len;
		r->nrec_seen++;
		int rc = trec_dec_record(type, r->body.data, c.p, (uint32_t)len, &r->tables,
					 &r->scratch, rec);
		if (rc == -ENOMEM)
			return fail(r, rc, "out of memory decoding a %llu byte record",
				    (unsigned long long)len);
		if (rc < 0) {
			if (corrupt(r, r->chunk_off, r->off, "malformed %s record at body offset %zu",
				    trec_record_type_name((enum trec_record_type)type), rec_off))
				return r->failed;
			continue;
		}
		if (rc == 0)
			continue; /* a table entry or an unknown record type */
		rec->file_offset = r->chunk_off;
		trec_check_record(&r->checks, &r->st, rec);
		r->st.records++;
		if (type < sizeof(r->st.records_by_type) / sizeof(r->st.records_by_type[0]))
			r->st.records_by_type[type]++;
		return 1;
	}
	return r->failed;
}

static void set_err(int *err, char *errbuf, size_t errlen, int e, const char *msg)
{
	if (err)
		*err = e;
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", msg);
}

/* Common part of both opens: r has its input; reads and checks the header. */
static struct trec_reader *reader_start(struct trec_reader *r, const struct trec_reader_opts *o,
					int *err, char *errbuf, size_t errlen)
{
	char msg[256] = "";
	const uint8_t *p;
	size_t avail = r->size < TREC_HEADER_SIZE_MAX ? (size_t)r->size : TREC_HEADER_SIZE_MAX;
	int crc_bad, rc;

	if (o) {
		r->flags = o->flags;
		r->warn = o->warn;
		r->warn_ctx = o->warn_ctx;
	}
	r->checks.warn = check_warn;
	r->checks.warn_ctx = r;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		rc = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}
	rc = read_at(r, 0, avail, &p);
	if (rc) {
		snprintf(msg, sizeof(msg), "read error: %s", strerror(-rc));
		goto fail;
	}
	rc = trec_header_decode(p, avail, &r->hdr, &crc_bad, msg, sizeof(msg));
	if (rc < 0)
		goto fail;
	if (crc_bad) {
		if (!(r->flags & TREC_READ_FORCE)) {
			rc = -EBADMSG;
			snprintf(msg, sizeof(msg), "corrupt file header (checksum mismatch)");
			goto fail;
		}
		warnf(r, "corrupt file header (checksum mismatch); reading on");
	}
	r->st.header_unknown = trec_header_unknown_fields(r->hdr.clock_id, r->hdr.page_size);
	if (r->st.header_unknown & TREC_HDR_BAD_CLOCK)
		warnf(r, "file header: unknown clock_id %u (format 1.0 defines 1, CLOCK_MONOTONIC)",
		      r->hdr.clock_id);
	if (r->st.header_unknown & TREC_HDR_BAD_PAGE_SIZE)
		warnf(r, "file header: page_size %u is not a page size", r->hdr.page_size);
	r->off = (uint64_t)rc;
	set_err(err, errbuf, errlen, 0, "");
	return r;
fail:
	set_err(err, errbuf, errlen, rc, msg);
	trec_reader_close(r);
	return NULL;
}

struct trec_reader *trec_reader_open_mem(const void *buf, size_t len,
					 const struct trec_reader_opts *o,
					 int *err, char *errbuf, size_t errlen)
{
	struct trec_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		set_err(err, errbuf, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->mem = buf ? buf : (const uint8_t *)"";
	r->size = buf ? len : 0;
	return reader_start(r, o, err, errbuf, errlen);
}

struct trec_reader *trec_reader_open_fd(int fd, const char *name, const struct trec_reader_opts *o,
					int *err, char *errbuf, size_t errlen)
{
	char msg[256];
	struct trec_reader *r;
	struct stat sb;
	int e;

	if (fstat(fd, &sb)) {
		e = -errno;
		snprintf(msg, sizeof(msg), "%s: %s", name, strerror(-e));
		goto fail;
	}
	/* A pipe cannot be read at offsets: copy it to a temporary file, so
	 * resynchronization works and memory stays bounded (reader_input.c). */
	if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)) {
		int tmp = trec_spool_stream(fd, msg, sizeof(msg));

		if (tmp < 0) {
			e = tmp;
			goto fail;
		}
		close(fd);
		fd = tmp;
		if (fstat(fd, &sb)) {
			e = -errno;
			snprintf(msg, sizeof(msg), "%s: %s", name, strerror(-e));
			goto fail;
		}
	}
	if (!S_ISREG(sb.st_mode)) {
		e = -EINVAL;
		snprintf(msg, sizeof(msg), "%s: not a regular file%s", name,
			 S_ISCHR(sb.st_mode) && isatty(fd) ? " (a terminal)" : "");
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		e = -ENOMEM;
		snprintf(msg, sizeof(msg), "out of memory");
		goto fail;
	}
	r->fd = fd;
	r->size = (uint64_t)sb.st_size;
	return reader_start(r, o, err, errbuf, errlen);
fail:
	set_err(err, errbuf, errlen, e, msg);
	close(fd);
	return NULL;
}

struct trec_reader *trec_reader_open(const char *path, const struct trec_reader_opts *o,
				     int *err, char *errbuf, size_t errlen)
{
	char msg[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(e));
		set_err(err, errbuf, errlen, -e, msg);
		return NULL;
	}
	return trec_reader_open_fd(fd, path, o, err, errbuf, errlen);
}

const struct trec_header *trec_reader_header(const struct trec_reader *r)
{
	return &r->hdr;
}

const char *trec_reader_error(const struct trec_reader *r)
{
	return r->err[0] ? r->err : "no error";
}

void trec_reader_stats(const struct trec_reader *r, struct trec_reader_stats *st)
{
	*st = r->st;
	st->seq_missing = trec_seq_missing(&r->checks.seq);
}

void trec_reader_close(struct trec_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	trec_buf_free(&r->in);
	trec_buf_free(&r->body);
	trec_buf_free(&r->tables.stacks);
	trec_buf_free(&r->tables.threads);
	trec_scratch_free(&r->scratch);
	ZSTD_freeDCtx(r->dctx);
	trec_seq_free(&r->checks.seq);
	free(r);
}
