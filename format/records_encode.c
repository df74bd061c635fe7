// SPDX-License-Identifier: MIT
/* Record payload encoders (FORMAT.md §6); the reader's twin is records_decode.c. */
#include <errno.h>
#include <string.h>

#include "records.h"

/* A string field; NULL is written as "". */
static int put_str(struct trec_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > TREC_MAX_STRING)
		return -EINVAL;
	trec_buf_bytes(b, s, n);
	return 0;
}

static int put_build_id(struct trec_buf *b, const uint8_t *id, uint32_t len)
{
	if (len > TREC_MAX_BUILD_ID || (len && !id))
		return -EINVAL;
	trec_buf_bytes(b, id, len);
	return 0;
}

/* comm is char[16], possibly without a NUL: at most 15 bytes are kept. */
static void put_comm(struct trec_buf *b, const char *comm)
{
	trec_buf_bytes(b, comm, strnlen(comm, TREC_MAX_COMM));
}

static int done(const struct trec_buf *b, int err)
{
	return err ? err : b->oom ? -ENOMEM : 0;
}

int trec_enc_meta(struct trec_buf *b, const struct trec_meta *m)
{
	int err = 0;

	trec_buf_varint(b, m->num_entries);
	for (uint32_t i = 0; i < m->num_entries && !err; i++) {
		err = put_str(b, m->entries[i].key);
		if (!err)
			err = put_str(b, m->entries[i].value);
	}
	return done(b, err);
}

int trec_enc_mappings(struct trec_buf *b, const struct trec_mapping_snapshot *m)
{
	int err = 0;

	trec_buf_varint(b, m->time_ns);
	trec_buf_varint(b, m->pid);
	trec_buf_varint(b, m->num_mappings);
	for (uint32_t i = 0; i < m->num_mappings && !err; i++) {
		const struct trec_mapping *mp = &m->mappings[i];

		if (mp->end < mp->start)
			return -EINVAL;
		TREC_BUF_VARINTS(b, mp->start, mp->end - mp->start, mp->file_offset,
				 mp->file_id, mp->bias, mp->inode, mp->mtime_ns, mp->dev_major,
				 mp->dev_minor, mp->prot);
		err = put_str(b, mp->path);
		if (!err)
			err = put_build_id(b, mp->build_id, mp->build_id_len);
	}
	return done(b, err);
}

int trec_enc_pid_event(struct trec_buf *b, const struct trec_pid_event *e)
{
	TREC_BUF_VARINTS(b, e->time_ns, e->kind, e->pid, e->tid, e->parent_pid);
	trec_buf_zigzag(b, e->exit_code);
	put_comm(b, e->comm);
	return done(b, put_str(b, e->filename));
}

int trec_enc_file(struct trec_buf *b, const struct trec_file_info *f)
{
	int err;

	TREC_BUF_VARINTS(b, f->file_id, f->size, f->inode, f->mtime_ns, f->dev_major, f->dev_minor);
	err = put_str(b, f->path);
	if (!err)
		err = put_build_id(b, f->build_id, f->build_id_len);
	if (!err)
		err = put_str(b, f->debuglink);
	return done(b, err);
}

int trec_enc_ksyms(struct trec_buf *b, const struct trec_ksyms *k)
{
	uint64_t prev = 0;
	int err = 0;

	trec_buf_varint(b, k->time_ns);
	trec_buf_varint(b, k->num_syms);
	for (uint32_t i = 0; i < k->num_syms && !err; i++) {
		const struct trec_ksym *s = &k->syms[i];

		/* Sorted input makes these small; zigzag keeps unsorted input exact. */
		trec_buf_zigzag(b, (int64_t)(s->addr - prev));
		prev = s->addr;
		trec_buf_u8(b, (uint8_t)s->type);
		err = put_str(b, s->name);
		if (!err)
			err = put_str(b, s->module);
	}
	return done(b, err);
}

int trec_enc_metrics(struct trec_buf *b, const struct trec_metrics *m)
{
	int err = 0;

	trec_buf_varint(b, m->time_ns);
	trec_buf_varint(b, m->num_values);
	for (uint32_t i = 0; i < m->num_values && !err; i++) {
		trec_buf_varint(b, m->values[i].id);
		err = put_str(b, m->values[i].name);
		trec_buf_varint(b, m->values[i].value);
	}
	return done(b, err);
}

int trec_enc_summary(struct trec_buf *b, const struct trec_summary *s)
{
	TREC_BUF_VARINTS(b, s->start_ns, s->end_ns, s->samples, s->lost);
	trec_buf_zigzag(b, s->exit_status);
	trec_buf_varint(b, s->flags);
	return done(b, 0);
}

int trec_enc_blob(struct trec_buf *b, const struct trec_blob *bl)
{
	if (bl->len && !bl->data)
		return -EINVAL;
	trec_buf_varint(b, bl->file_id);
	trec_buf_varint(b, bl->subtype);
	trec_buf_bytes(b, bl->data, bl->len);
	return done(b, 0);
}

/* Rows of one entry: addresses as deltas from the entry's start, then
 * from the previous row (rows are sorted, so the deltas stay small). */
static int put_jit_lines(struct trec_buf *b, const struct trec_jitsyms *j,
			 const struct trec_jit_entry *e)
{
	uint64_t prev = e->start;

	trec_buf_varint(b, e->num_lines);
	for (uint32_t k = 0; k < e->num_lines; k++) {
		const struct trec_jit_line *l = &j->lines[e->first_line + k];

		if (l->file >= j->num_files)
			return -EINVAL;
		trec_buf_zigzag(b, (int64_t)(l->addr - prev));
		trec_buf_varint(b, l->line);
		trec_buf_varint(b, l->file);
		prev = l->addr;
	}
	return 0;
}

int trec_enc_jitsyms(struct trec_buf *b, const struct trec_jitsyms *j)
{
	uint64_t prev_start = 0, prev_load = 0, rows = 0;
	int err;

	if ((j->num_files && !j->files) || (j->num_entries && !j->entries) ||
	    (j->num_lines && !j->lines))
		return -EINVAL;
	trec_buf_varint(b, j->time_ns);
	trec_buf_varint(b, j->pid);
	trec_buf_varint(b, j->source);
	trec_buf_varint(b, j->flags);
	trec_buf_varint(b, j->bad);
	err = put_str(b, j->path);
	trec_buf_varint(b, j->num_files);
	trec_buf_varint(b, j->num_entries);
	trec_buf_varint(b, j->num_lines);
	for (uint32_t i = 0; i < j->num_files && !err; i++)
		err = put_str(b, j->files[i]);
	for (uint32_t i = 0; i < j->num_entries && !err; i++) {
		const struct trec_jit_entry *e = &j->entries[i];

		/* end_ns is stored as end - load + 1 (0 = never): it must fit */
		if (e->size > UINT64_MAX - e->start ||
		    (e->end_ns && (e->end_ns < e->load_ns || e->end_ns - e->load_ns == UINT64_MAX)) ||
		    e->num_lines > j->num_lines || e->first_line > j->num_lines - e->num_lines)
			return -EINVAL;
		trec_buf_zigzag(b, (int64_t)(e->start - prev_start));
		trec_buf_varint(b, e->size);
		trec_buf_zigzag(b, (int64_t)(e->load_ns - prev_load));
		trec_buf_varint(b, e->end_ns ? e->end_ns - e->load_ns + 1 : 0);
		trec_buf_varint(b, e->code_index);
		err = put_str(b, e->name);
		if (!err)
			err = put_jit_lines(b, j, e);
		prev_start = e->start;
		prev_load = e->load_ns;
		rows += e->num_lines;
	}
	/* every row belongs to exactly one entry */
	if (!err && rows != j->num_lines)
		err = -EINVAL;
	return done(b, err);
}

static void put_frames(struct trec_buf *b, const struct trec_rec_frame *f, uint32_t n)
{
	uint64_t prev_file = 0, prev_addr = 0;

	/* Neighbouring frames share files and are close: store differences. */
	for (uint32_t i = 0; i < n; i++) {
		trec_buf_u8(b, f[i].kind);
		trec_buf_u8(b, f[i].flags);
		trec_buf_zigzag(b, (int64_t)(f[i].file_id - prev_file));
		trec_buf_zigzag(b, (int64_t)(f[i].addr - prev_addr));
		prev_file = f[i].file_id;
		prev_addr = f[i].addr;
	}
}

int trec_enc_stack(struct trec_buf *b, const struct trec_sample *s)
{
	if (s->num_kernel_frames > TREC_MAX_STACK_FRAMES ||
	    s->num_user_frames > TREC_MAX_STACK_FRAMES ||
	    (s->num_kernel_frames && !s->kernel_frames) ||
	    (s->num_user_frames && !s->user_frames))
		return -EINVAL;
	trec_buf_varint(b, s->num_kernel_frames);
	trec_buf_varint(b, s->num_user_frames);
	put_frames(b, s->kernel_frames, s->num_kernel_frames);
	put_frames(b, s->user_frames, s->num_user_frames);
	return done(b, 0);
}

int trec_enc_thread(struct trec_buf *b, const struct trec_sample *s)
{
	trec_buf_varint(b, s->pid);
	trec_buf_varint(b, s->tid);
	put_comm(b, s->comm);
	return done(b, 0);
}

void trec_enc_sample(struct trec_buf *b, const struct trec_sample *s, uint64_t prev_time,
		     uint32_t thread_idx, uint32_t stack_idx)
{
	/* Samples of different CPUs arrive slightly out of order: signed delta. */
	trec_buf_zigzag(b, (int64_t)(s->time_ns - prev_time));
	TREC_BUF_VARINTS(b, thread_idx, stack_idx, s->cpu, s->flags, s->weight ? s->weight : 1,
			 s->offcpu_ns);
}
