// SPDX-License-Identifier: MIT
/*
 * The .tr writer: frames records into an uncompressed chunk buffer with
 * chunk-local stack and thread tables, and on a full buffer (or flush)
 * writes one chunk = header + one zstd frame (FORMAT.md §3).
 *
 * Errors are sticky: once a write fails (ENOSPC, EIO, ...) every later
 * call returns the same error, so the caller sees it even if it only
 * checks trec_writer_close().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "dedup.h"
#include "records.h"

/* Worst-case SAMPLE payload: seven varints (1.2 appended offcpu_ns). */
#define SAMPLE_PAYLOAD_MAX 60u
#define THREAD_MEMO_SLOTS 16

struct trec_writer {
	int fd;
	int err;
	uint64_t bytes;       /* header + complete chunks written */
	uint64_t chunk_bytes_in; /* uncompressed bytes of the chunks compressed */
	size_t chunk_bytes;
	int level;
	struct trec_buf chunk; /* uncompressed body being built */
	uint32_t nrec, seq;
	uint64_t samples;      /* SAMPLE records taken */
	uint64_t first_time;   /* the oldest of their times */
	uint64_t prev_time;    /* of the last SAMPLE in this chunk */
	/* trec_writer_last_stack: where the last SAMPLE's stack is */
	uint32_t uid;          /* this writer's, in the process: chunk_token() */
	uint64_t last_stack_chunk;
	uint32_t last_stack_idx;
	bool last_stack_new;
	/* The last threads' entries in this chunk, by tid: -a samples
	 * alternate between the threads running on each CPU. */
	struct thread_memo {
		uint8_t enc[64];
		uint32_t len, idx; /* len 0: empty */
	} thr_memo[THREAD_MEMO_SLOTS];
	struct trec_dedup stacks, threads;
	struct trec_buf rec, stk, thr; /* payload scratch */
	struct trec_buf out;           /* chunk header + compressed body */
	ZSTD_CCtx *cctx;
};

static atomic_uint writer_uids;

static int write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void writer_free(struct trec_writer *w)
{
	trec_buf_free(&w->chunk);
	trec_buf_free(&w->rec);
	trec_buf_free(&w->stk);
	trec_buf_free(&w->thr);
	trec_buf_free(&w->out);
	trec_dedup_free(&w->stacks);
	trec_dedup_free(&w->threads);
	ZSTD_freeCCtx(w->cctx);
	free(w);
}

struct trec_writer *trec_writer_open_fd(int fd, const struct trec_header *h,
					const struct trec_writer_opts *opts)
{
	uint8_t hdr[TREC_HEADER_SIZE_V1];
	struct trec_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->uid = atomic_fetch_add(&writer_uids, 1) + 1;
	w->chunk_bytes = opts && opts->chunk_bytes ? opts->chunk_bytes : TREC_DEFAULT_CHUNK_BYTES;
	if (w->chunk_bytes > TREC_MAX_CHUNK_ULEN)
		w->chunk_bytes = TREC_MAX_CHUNK_ULEN;
	w->level = opts && opts->compression_level ? opts->compression_level
						   : TREC_DEFAULT_COMPRESSION_LEVEL;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		err = -ENOMEM;
		goto fail;
	}
	trec_header_encode(h, hdr);
	err = write_full(fd, hdr, sizeof(hdr));
	if (err)
		goto fail;
	w->bytes = sizeof(hdr);
	return w;
fail:
	close(fd);
	writer_free(w);
	errno = -err;
	return NULL;
}

struct trec_writer *trec_writer_open(const char *path, const struct trec_header *h,
				     const struct trec_writer_opts *opts, int overwrite)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
	int fd = open(path, flags, 0600);

	if (fd < 0)
		return NULL;
	return trec_writer_open_fd(fd, h, opts);
}

uint64_t trec_writer_bytes(const struct trec_writer *w)
{
	return w->bytes;
}

uint64_t trec_writer_record_bytes(const struct trec_writer *w)
{
	return w->chunk_bytes_in + w->chunk.len;
}

int trec_writer_set_level(struct trec_writer *w, int level)
{
	if (level < 1 || level > TREC_MAX_COMPRESSION_LEVEL)
		return -EINVAL;
	w->level = level;
	return 0;
}

int trec_writer_level(const struct trec_writer *w)
{
	return w->level;
}

int trec_writer_flush(struct trec_writer *w)
{
	struct trec_chunk_hdr ch = { .type = TREC_CHUNK_RECORDS };
	size_t bound, clen;

	if (w->err || !w->chunk.len)
		return w->err;
	bound = ZSTD_compressBound(w->chunk.len);
	w->out.len = 0;
	if (trec_buf_reserve(&w->out, TREC_CHUNK_HDR_SIZE + bound))
		return w->err = -ENOMEM;
	clen = ZSTD_compressCCtx(w->cctx, w->out.data + TREC_CHUNK_HDR_SIZE, bound,
				 w->chunk.data, w->chunk.len, w->level);
	if (ZSTD_isError(clen))
		return w->err = -EIO;
	ch.clen = (uint32_t)clen;
	ch.ulen = (uint32_t)w->chunk.len;
	ch.nrec = w->nrec;
	ch.seq = w->seq;
	ch.body_crc = trec_crc32(w->out.data + TREC_CHUNK_HDR_SIZE, clen);
	trec_chunk_hdr_encode(&ch, w->out.data);
	w->err = write_full(w->fd, w->out.data, TREC_CHUNK_HDR_SIZE + clen);
	if (w->err)
		return w->err;
	w->bytes += TREC_CHUNK_HDR_SIZE + clen;
	w->chunk_bytes_in += w->chunk.len;
	w->seq++;
	w->chunk.len = 0;
	w->nrec = 0;
	w->prev_time = 0;
	for (size_t i = 0; i < THREAD_MEMO_SLOTS; i++)
		w->thr_memo[i].len = 0;
	trec_dedup_reset(&w->stacks);
	trec_dedup_reset(&w->threads);
	return 0;
}

static size_t framed_len(uint32_t type, size_t len)
{
	return trec_varint_len(type) + trec_varint_len(len) + len;
}

/* Appends type + length + payload; returns the payload's offset. */
static uint32_t append_record(struct trec_writer *w, uint32_t type, const struct trec_buf *p)
{
	uint32_t off;

	trec_buf_varint(&w->chunk, type);
	trec_buf_varint(&w->chunk, p->len);
	off = (uint32_t)w->chunk.len;
	trec_buf_put(&w->chunk, p->data, p->len);
	w->nrec++;
	return off;
}

/* Ends the chunk first if need more bytes would overflow it. */
static int make_room(struct trec_writer *w, size_t need)
{
	if (need > TREC_MAX_CHUNK_ULEN)
		return -E2BIG;
	if (w->chunk.len && w->chunk.len + need > w->chunk_bytes)
		return trec_writer_flush(w);
	return 0;
}

static int finish(struct trec_writer *w)
{
	if (w->chunk.oom)
		w->err = -ENOMEM;
	if (w->err)
		return w->err;
	return w->chunk.len >= w->chunk_bytes ? trec_writer_flush(w) : 0;
}

/* Common path of every record type but SAMPLE: w->rec holds the payload. */
static int put_record(struct trec_writer *w, uint32_t type, int enc_err)
{
	int err = enc_err;

	if (!err)
		err = make_room(w, framed_len(type, w->rec.len));
	if (err)
		return err == -EINVAL || err == -E2BIG ? err : (w->err = err);
	append_record(w, type, &w->rec);
	return finish(w);
}

#define BEGIN(w) do { if ((w)->err) return (w)->err; (w)->rec.len = 0; (w)->rec.oom = 0; } while (0)

int trec_write_meta(struct trec_writer *w, const struct trec_meta *m)
{
	BEGIN(w);
	return put_record(w, TREC_REC_META, trec_enc_meta(&w->rec, m));
}

int trec_write_mappings(struct trec_writer *w, const struct trec_mapping_snapshot *m)
{
	BEGIN(w);
	return put_record(w, TREC_REC_MAPPINGS, trec_enc_mappings(&w->rec, m));
}

int trec_write_pid_event(struct trec_writer *w, const struct trec_pid_event *e)
{
	BEGIN(w);
	return put_record(w, TREC_REC_PID_EVENT, trec_enc_pid_event(&w->rec, e));
}

int trec_write_file(struct trec_writer *w, const struct trec_file_info *f)
{
	BEGIN(w);
	return put_record(w, TREC_REC_FILE, trec_enc_file(&w->rec, f));
}

int trec_write_ksyms(struct trec_writer *w, const struct trec_ksyms *k)
{
	BEGIN(w);
	return put_record(w, TREC_REC_KSYMS, trec_enc_ksyms(&w->rec, k));
}

int trec_write_metrics(struct trec_writer *w, const struct trec_metrics *m)
{
	BEGIN(w);
	return put_record(w, TREC_REC_METRICS, trec_enc_metrics(&w->rec, m));
}

int trec_write_summary(struct trec_writer *w, const struct trec_summary *s)
{
	BEGIN(w);
	return put_record(w, TREC_REC_SUMMARY, trec_enc_summary(&w->rec, s));
}

int trec_write_blob(struct trec_writer *w, enum trec_record_type type,
		    const struct trec_blob *b)
{
	BEGIN(w);
	if (type != TREC_REC_SYMTAB && type != TREC_REC_PYCODE && type != TREC_REC_BLOB &&
	    type != TREC_REC_INTERP_CODE)
		return -EINVAL;
	return put_record(w, type, trec_enc_blob(&w->rec, b));
}

int trec_write_jitsyms(struct trec_writer *w, const struct trec_jitsyms *j)
{
	BEGIN(w);
	return put_record(w, TREC_REC_JITSYMS, trec_enc_jitsyms(&w->rec, j));
}

/* Index of a table entry in this chunk: idx if found, else adds it (a
 * STACK/THREAD record). */
static int64_t table_index(struct trec_writer *w, struct trec_dedup *d, uint32_t type,
			   const struct trec_buf *p, uint64_t hash, int64_t idx)
{
	if (idx >= 0)
		return idx;
	uint32_t off = append_record(w, type, p);
	if (w->chunk.oom)
		return -ENOMEM;
	return trec_dedup_add(d, hash, off, (uint32_t)p->len);
}

static struct thread_memo *thread_memo(struct trec_writer *w, uint32_t tid)
{
	return &w->thr_memo[tid % THREAD_MEMO_SLOTS];
}

/* The index of the thread entry equal to w->thr (the sample's encoded
 * thread, of tid) in this chunk, or -1 and its hash in *ht. */
static int64_t find_thread(struct trec_writer *w, uint32_t tid, uint64_t *ht)
{
	const struct thread_memo *m = thread_memo(w, tid);

	if (w->thr.len == m->len && !memcmp(w->thr.data, m->enc, m->len))
		return m->idx;
	*ht = trec_hash(w->thr.data, w->thr.len);
	return trec_dedup_find(&w->threads, w->chunk.data, w->thr.data, (uint32_t)w->thr.len, *ht);
}

static void remember_thread(struct trec_writer *w, uint32_t tid, uint32_t ti)
{
	struct thread_memo *m = thread_memo(w, tid);

	if (w->thr.len > sizeof(m->enc))
		return;
	memcpy(m->enc, w->thr.data, w->thr.len);
	m->len = (uint32_t)w->thr.len;
	m->idx = ti;
}

/* The SAMPLE record itself, its thread and stack in this chunk's tables. */
static int put_sample(struct trec_writer *w, const struct trec_sample *s, uint32_t ti,
		      uint32_t si)
{
	remember_thread(w, s->tid, ti);
	trec_enc_sample(&w->rec, s, w->prev_time, ti, si);
	append_record(w, TREC_REC_SAMPLE, &w->rec);
	w->prev_time = s->time_ns;
	if (!w->samples++ || s->time_ns < w->first_time)
		w->first_time = s->time_ns;
	return finish(w);
}

/* Names the chunk being built, among all writers of the process: a
 * stack index is only good for that chunk of that writer. */
static uint64_t chunk_token(const struct trec_writer *w)
{
	return (uint64_t)w->uid << 32 | w->seq;
}

/* indexed: look the stack up among the chunk's, and index it if new. */
static int write_sample(struct trec_writer *w, const struct trec_sample *s, bool indexed)
{
	uint64_t hs = 0, ht = 0;
	int64_t si = -1, ti;
	int err;

	w->last_stack_new = true;
	w->last_stack_idx = UINT32_MAX;
	if (w->err)
		return w->err;
	w->stk.len = w->thr.len = w->rec.len = 0;
	err = trec_enc_stack(&w->stk, s);
	if (!err)
		err = trec_enc_thread(&w->thr, s);
	if (err)
		return err == -EINVAL ? err : (w->err = err);
	if (indexed)
		hs = trec_hash(w->stk.data, w->stk.len);

	/* All three records must land in the same chunk: the tables are per chunk. */
	for (;;) {
		size_t need = framed_len(TREC_REC_SAMPLE, SAMPLE_PAYLOAD_MAX);

		if (indexed)
			si = trec_dedup_find(&w->stacks, w->chunk.data, w->stk.data,
					     (uint32_t)w->stk.len, hs);
		ti = find_thread(w, s->tid, &ht);
		if (si < 0)
			need += framed_len(TREC_REC_STACK, w->stk.len);
		if (ti < 0)
			need += framed_len(TREC_REC_THREAD, w->thr.len);
		if (!w->chunk.len || w->chunk.len + need <= w->chunk_bytes)
			break;
		err = trec_writer_flush(w);
		if (err)
			return err;
	}
	w->last_stack_new = si < 0;
	if (indexed) {
		si = table_index(w, &w->stacks, TREC_REC_STACK, &w->stk, hs, si);
	} else {
		uint32_t off = append_record(w, TREC_REC_STACK, &w->stk);

		si = w->chunk.oom ? -ENOMEM
				  : trec_dedup_add_unindexed(&w->stacks, off, (uint32_t)w->stk.len);
	}
	ti = si < 0 ? si : table_index(w, &w->threads, TREC_REC_THREAD, &w->thr, ht, ti);
	if (ti < 0)
		return w->err = (int)ti;
	w->last_stack_chunk = chunk_token(w); /* before finish() may end the chunk */
	w->last_stack_idx = (uint32_t)si;
	return put_sample(w, s, (uint32_t)ti, (uint32_t)si);
}

int trec_write_sample(struct trec_writer *w, const struct trec_sample *s)
{
	return write_sample(w, s, true);
}

int trec_write_sample_unshared(struct trec_writer *w, const struct trec_sample *s)
{
	return write_sample(w, s, false);
}

bool trec_writer_last_stack(const struct trec_writer *w, uint64_t *chunk, uint32_t *idx)
{
	*chunk = w->last_stack_chunk;
	*idx = w->last_stack_idx;
	return w->last_stack_new;
}

int trec_write_sample_in_stack(struct trec_writer *w, const struct trec_sample *s,
			       uint64_t chunk, uint32_t stack_idx)
{
	uint64_t ht = 0;
	int64_t ti;
	size_t need = framed_len(TREC_REC_SAMPLE, SAMPLE_PAYLOAD_MAX);
	int err;

	if (w->err)
		return w->err;
	/* Another chunk's table, or none of this one's: the caller writes it whole. */
	if (chunk != chunk_token(w) || stack_idx >= w->stacks.count)
		return 1;
	w->thr.len = w->rec.len = 0;
	err = trec_enc_thread(&w->thr, s);
	if (err)
		return err == -EINVAL ? err : (w->err = err);
	ti = find_thread(w, s->tid, &ht);
	if (ti < 0)
		need += framed_len(TREC_REC_THREAD, w->thr.len);
	if (w->chunk.len + need > w->chunk_bytes)
		return 1; /* the chunk ends here: the stack goes in the next one */
	ti = table_index(w, &w->threads, TREC_REC_THREAD, &w->thr, ht, ti);
	if (ti < 0)
		return w->err = (int)ti;
	w->last_stack_new = false;
	w->last_stack_chunk = chunk;
	w->last_stack_idx = stack_idx;
	return put_sample(w, s, (uint32_t)ti, stack_idx);
}

/* A chunk of another file, copied as is but for its sequence number (and
 * so its header CRC): its body decodes on its own (FORMAT.md §3). */
int trec_writer_copy_chunks(struct trec_writer *w, const uint8_t *p, size_t n)
{
	struct trec_chunk_hdr ch;
	uint8_t hdr[TREC_CHUNK_HDR_SIZE];
	int err = trec_writer_flush(w);

	while (!err && n) {
		if (n < TREC_CHUNK_HDR_SIZE || trec_chunk_hdr_decode(p, &ch) ||
		    ch.clen > n - TREC_CHUNK_HDR_SIZE)
			return -EBADMSG; /* not ours to latch: the source is bad */
		ch.seq = w->seq;
		trec_chunk_hdr_encode(&ch, hdr);
		err = write_full(w->fd, hdr, sizeof(hdr));
		if (!err)
			err = write_full(w->fd, p + TREC_CHUNK_HDR_SIZE, ch.clen);
		if (err)
			return w->err = err;
		w->bytes += TREC_CHUNK_HDR_SIZE + ch.clen;
		w->seq++;
		p += TREC_CHUNK_HDR_SIZE + ch.clen;
		n -= TREC_CHUNK_HDR_SIZE + ch.clen;
	}
	return err;
}

uint64_t trec_writer_samples(const struct trec_writer *w, uint64_t *first_time)
{
	if (first_time)
		*first_time = w->first_time;
	return w->samples;
}

int trec_writer_close(struct trec_writer *w)
{
	int err = trec_writer_flush(w);

	/* Pipes and character devices cannot fsync; that is not data loss. */
	if (fsync(w->fd) && !err && errno != EINVAL && errno != ENOTSUP && errno != EROFS)
		err = -errno;
	if (close(w->fd) && !err)
		err = -errno;
	writer_free(w);
	return err;
}
