// SPDX-License-Identifier: MIT
/* trecord's Ruby glue; see ruby_sync.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/u64map.h"
#include "format/containers/vec.h"
#include "record/interp/ruby/ruby_sync.h"

struct rb_file {
	uint64_t file_id;
	int status; /* 1 Ruby, 0 not, < 0 unsupported Ruby (errno) */
	struct trec_rb_offsets offsets;
};

struct rb_pid {
	uint32_t pid;
	uint64_t file_id, bias;
	const struct trec_rb_offsets *offsets; /* into files: never moved, see files */
	/* iseq address -> (object id << 1 | 1) of the last description tried */
	struct trec_u64map seen;
};

struct trec_rb_sync {
	const struct trec_rb_sync_ops *ops;
	void *ctx;
	bool verbose;
	pthread_mutex_t lock;
	/* Few files and pids are Ruby: plain arrays of pointers (stable). */
	struct rb_file **files;
	size_t num_files, cap_files;
	struct rb_pid **pids;
	size_t num_pids, cap_pids;
	struct trec_rb_sync_stats stats;
};

struct trec_rb_sync *trec_rb_sync_new(const struct trec_rb_sync_ops *ops, void *ctx, bool verbose)
{
	struct trec_rb_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->verbose = verbose;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

static void pid_free(struct rb_pid *p)
{
	trec_u64map_free(&p->seen);
	free(p);
}

void trec_rb_sync_free(struct trec_rb_sync *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->num_pids; i++)
		pid_free(s->pids[i]);
	for (size_t i = 0; i < s->num_files; i++)
		free(s->files[i]);
	free(s->pids);
	free(s->files);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static struct rb_file *file_of(struct trec_rb_sync *s, uint64_t file_id, const char *path)
{
	struct rb_file *f;
	char err[512] = "";

	for (size_t i = 0; i < s->num_files; i++)
		if (s->files[i]->file_id == file_id)
			return s->files[i];
	if (TREC_GROW(s->files, s->cap_files, s->num_files + 1, 16) ||
	    !(f = calloc(1, sizeof(*f))))
		return NULL;
	s->files[s->num_files++] = f;
	f->file_id = file_id;
	/* Unlocked: detection reads the file, and the first interpreter loads
	 * its BPF program (a second under load), while the writer thread's
	 * trace, exec and exit calls wait for the lock. Only this thread (the
	 * sync thread) adds files. */
	pthread_mutex_unlock(&s->lock);
	int status = trec_rb_detect(path, &f->offsets, err, sizeof(err)), routed = 0;

	if (status == 0) {
		struct trec_offset_range r;

		trec_rb_offset_range(&f->offsets, &r);
		routed = s->ops->set_range(s->ctx, file_id, &r);
	}
	pthread_mutex_lock(&s->lock);
	f->status = status;
	if (f->status == 0) {
		f->status = routed ? -EIO : 1;
		s->stats.interpreters++;
		if (s->verbose)
			fprintf(stderr, "trecord: ruby %u.%u.%u (rb_vm_exec at %#llx)\n",
				f->offsets.major, f->offsets.minor, f->offsets.micro,
				(unsigned long long)f->offsets.exec_start);
	} else if (f->status == -ENOENT) {
		f->status = 0;
	} else {
		s->stats.unsupported++;
		if (s->verbose)
			fprintf(stderr, "trecord: no ruby stacks: %s\n", err);
	}
	return f;
}

static struct rb_pid *pid_of(struct trec_rb_sync *s, uint32_t pid)
{
	for (size_t i = 0; i < s->num_pids; i++)
		if (s->pids[i]->pid == pid)
			return s->pids[i];
	return NULL;
}

/* Under the lock. */
static int add_pid(struct trec_rb_sync *s, uint32_t pid, uint64_t file_id,
		   const struct trec_rb_offsets *o, uint64_t bias)
{
	struct trec_rb_proc_info info;
	struct rb_pid *p = pid_of(s, pid);
	int err;

	if (p && p->file_id == file_id && p->bias == bias)
		return 1;
	if (!p) {
		if (TREC_GROW(s->pids, s->cap_pids, s->num_pids + 1, 16) ||
		    !(p = calloc(1, sizeof(*p))))
			return -ENOMEM;
		s->pids[s->num_pids++] = p;
		p->pid = pid;
	}
	p->file_id = file_id;
	p->bias = bias;
	p->offsets = o;
	trec_rb_proc_info_init(o, bias, &info);
	err = s->ops->set_proc(s->ctx, pid, &info);
	if (err) {
		p->file_id = 0; /* not set up: the next sync tries again */
		return err;
	}
	s->stats.pids++;
	return 1;
}

int trec_rb_sync_mapping(struct trec_rb_sync *s, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias)
{
	const struct rb_file *f;
	int ret;

	pthread_mutex_lock(&s->lock);
	f = file_of(s, file_id, open_path);
	if (!f)
		ret = -ENOMEM;
	else if (f->status <= 0)
		ret = 0;
	else
		ret = add_pid(s, pid, file_id, &f->offsets, bias);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int trec_rb_sync_add_pid(struct trec_rb_sync *s, uint32_t pid, uint64_t file_id,
			 const struct trec_rb_offsets *o, uint64_t bias)
{
	struct rb_file *f;
	struct trec_offset_range r;
	int ret = -ENOMEM;

	pthread_mutex_lock(&s->lock);
	if (TREC_GROW(s->files, s->cap_files, s->num_files + 1, 16) ||
	    !(f = calloc(1, sizeof(*f))))
		goto out;
	s->files[s->num_files++] = f;
	f->file_id = file_id;
	f->status = 1;
	f->offsets = *o;
	trec_rb_offset_range(o, &r);
	ret = s->ops->set_range(s->ctx, file_id, &r);
	if (!ret)
		ret = add_pid(s, pid, file_id, &f->offsets, bias);
out:
	pthread_mutex_unlock(&s->lock);
	return ret < 0 ? ret : 0;
}

/* Reads, encodes and writes one description. 1 written, negative errno. */
static int describe(struct trec_rb_sync *s, struct rb_pid *p, uint64_t iseq, uint32_t object_id,
		    trec_rb_read_fn read, void *ctx)
{
	struct trec_rbcode_owned code;
	struct trec_blob blob = { .file_id = iseq, .subtype = TREC_RBCODE_SUBTYPE };
	int pid = (int)p->pid;
	uint8_t *buf;
	size_t len;
	int err;

	err = trec_rb_read_iseq(read ? read : trec_rb_read_pid, read ? ctx : &pid, p->pid,
				p->offsets, iseq, object_id, &code);
	if (err)
		return err;
	err = trec_rbcode_encode(&code.c, &buf, &len);
	trec_rbcode_owned_free(&code);
	if (err)
		return err;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = s->ops->write_blob(s->ctx, TREC_REC_INTERP_CODE, &blob);
	free(buf);
	return err ? err : 1;
}

void trec_rb_sync_trace(struct trec_rb_sync *s, uint32_t pid, const struct trec_frame *frames,
			uint32_t n, trec_rb_read_fn read, void *ctx)
{
	struct rb_pid *p = NULL;

	if (!s)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct trec_frame *f = &frames[i];
		uint32_t oid = (uint32_t)f->addr_or_line;
		uint64_t mark = (uint64_t)oid << 1 | 1;
		int err = 0, ret;

		if (f->kind != TREC_FRAME_RUBY || (f->flags & TREC_FRAME_F_ERROR) || !f->file_id)
			continue;
		if (!p) {
			pthread_mutex_lock(&s->lock);
			p = pid_of(s, pid);
			if (!p || !p->file_id) {
				pthread_mutex_unlock(&s->lock);
				return;
			}
		}
		if ((uintptr_t)trec_u64map_get(&p->seen, f->file_id) == mark)
			continue;
		/* Remember the attempt whatever happens: a failed read is not
		 * retried for every sample. */
		trec_u64map_put(&p->seen, f->file_id, (void *)(uintptr_t)mark, &err);
		if (err)
			continue;
		ret = describe(s, p, f->file_id, oid, read, ctx);
		if (ret == 1)
			s->stats.code_written++;
		else if (ret == -ESTALE)
			s->stats.code_stale++;
		else
			s->stats.code_unreadable++;
		if (ret < 0 && s->verbose)
			fprintf(stderr, "trecord: pid %u: ruby iseq %#llx not described: %s\n", pid,
				(unsigned long long)f->file_id, strerror(-ret));
	}
	if (p)
		pthread_mutex_unlock(&s->lock);
}

static void forget(struct trec_rb_sync *s, uint32_t pid, bool remove)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->num_pids; i++) {
		struct rb_pid *p = s->pids[i];

		if (p->pid != pid)
			continue;
		if (remove) {
			s->ops->del_proc(s->ctx, pid);
			pid_free(p);
			s->pids[i] = s->pids[--s->num_pids];
		} else {
			trec_u64map_free(&p->seen);
			memset(&p->seen, 0, sizeof(p->seen));
		}
		break;
	}
	pthread_mutex_unlock(&s->lock);
}

void trec_rb_sync_exec(struct trec_rb_sync *s, uint32_t pid)
{
	forget(s, pid, false);
}

void trec_rb_sync_remove(struct trec_rb_sync *s, uint32_t pid)
{
	forget(s, pid, true);
}

void trec_rb_sync_get_stats(struct trec_rb_sync *s, struct trec_rb_sync_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	pthread_mutex_unlock(&s->lock);
}
