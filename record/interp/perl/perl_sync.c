// SPDX-License-Identifier: MIT
/* trecord's Perl glue; see perl_sync.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/interp/perl/perl_detect.h"
#include "record/interp/perl/perl_sync.h"

struct perl_file {
	uint64_t file_id;
	int status; /* 1 Perl, 0 not, < 0 a Perl we cannot unwind */
	struct trec_perl_file f;
};

struct perl_pid {
	uint32_t pid;
	bool ready;      /* perl_procs holds info */
	bool tsd_failed; /* counted in pid_failures */
	uint64_t file_id, bias;
	const struct trec_perl_offsets *off;
	struct trec_perl_seen *seen;
};

struct trec_perl_sync {
	const struct trec_perl_sync_ops *ops;
	void *ctx;
	bool verbose;
	pthread_mutex_t lock;
	/* Few files and pids are Perl: plain arrays. */
	struct perl_file *files;
	size_t num_files, cap_files;
	struct perl_pid *pids;
	size_t num_pids, cap_pids;
	struct trec_perl_sync_stats stats;
};

struct trec_perl_sync *trec_perl_sync_new(const struct trec_perl_sync_ops *ops, void *ctx,
					  bool verbose)
{
	struct trec_perl_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->verbose = verbose;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void trec_perl_sync_free(struct trec_perl_sync *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->num_pids; i++)
		trec_perl_seen_free(s->pids[i].seen);
	free(s->pids);
	free(s->files);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The detection result for a file, computed on first sight. */
static const struct perl_file *file_of(struct trec_perl_sync *s, uint64_t file_id,
				       const char *path)
{
	struct perl_file *f;
	char err[512] = "";
	int r;

	for (size_t i = 0; i < s->num_files; i++)
		if (s->files[i].file_id == file_id)
			return &s->files[i];
	if (TREC_GROW(s->files, s->cap_files, s->num_files + 1, 16))
		return NULL;
	f = &s->files[s->num_files++];
	memset(f, 0, sizeof(*f));
	f->file_id = file_id;
	/* Unlocked: detection reads the file, and the first interpreter loads
	 * its BPF program (a second under load), while the writer thread's
	 * trace, exec and exit calls wait for the lock. Only this thread (the
	 * sync thread) adds files. */
	pthread_mutex_unlock(&s->lock);
	r = trec_perl_detect(path, &f->f, err, sizeof(err));
	int routed = 0;

	if (r == 0) {
		struct trec_offset_range range;

		trec_perl_offset_range(&f->f, &range);
		routed = s->ops->set_range(s->ctx, file_id, &range);
	}
	pthread_mutex_lock(&s->lock);
	if (r == 0) {
		f->status = routed ? -EIO : 1;
		s->stats.interpreters++;
		if (s->verbose)
			fprintf(stderr, "trecord: perl %u.%u.%u in %s\n", f->f.revision,
				f->f.version, f->f.subversion, path);
	} else if (r == -ENOTSUP) {
		f->status = r;
		s->stats.unsupported++;
		if (s->verbose)
			fprintf(stderr, "trecord: no perl stacks: %s\n", err);
	}
	return f;
}

static struct perl_pid *pid_of(struct trec_perl_sync *s, uint32_t pid)
{
	for (size_t i = 0; i < s->num_pids; i++)
		if (s->pids[i].pid == pid)
			return &s->pids[i];
	return NULL;
}

int trec_perl_sync_mapping(struct trec_perl_sync *s, uint32_t pid, uint64_t file_id,
			   const char *open_path, uint64_t bias)
{
	const struct perl_file *f;
	struct trec_perl_proc_info info;
	struct trec_tsd_info tsd;
	struct perl_pid *p;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	f = file_of(s, file_id, open_path);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	if (f->status <= 0)
		goto out;
	p = pid_of(s, pid);
	if (p && p->ready && p->file_id == file_id && p->bias == bias) {
		ret = 1;
		goto out;
	}
	if (!p) {
		if (TREC_GROW(s->pids, s->cap_pids, s->num_pids + 1, 16)) {
			ret = -ENOMEM;
			goto out;
		}
		p = &s->pids[s->num_pids++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->seen = trec_perl_seen_new();
		if (!p->seen) {
			s->num_pids--;
			ret = -ENOMEM;
			goto out;
		}
	}
	p->ready = false;
	p->file_id = file_id;
	p->bias = bias;
	p->off = f->f.off;
	/* Right after exec libc is not mapped yet: the next sync retries. */
	ret = trec_tsd_detect_pid((int)pid, &tsd);
	if (ret) {
		if (ret != -ENOENT && !p->tsd_failed) {
			p->tsd_failed = true;
			s->stats.pid_failures++;
			if (s->verbose)
				fprintf(stderr, "trecord: pid %u: perl, but libc's thread-specific data layout is unknown\n",
					pid);
		}
		ret = 0;
		goto out;
	}
	trec_perl_proc_info_init(&f->f, bias, &tsd, &info);
	ret = s->ops->set_proc(s->ctx, pid, &info);
	if (!ret) {
		p->ready = true;
		s->stats.pids++;
		ret = 1;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* Writes the description of one frame of pid. 1 written, or an errno. */
static int describe(struct trec_perl_sync *s, const struct perl_pid *p, uint64_t cop,
		    uint64_t key)
{
	struct trec_perlcode_owned c;
	struct trec_blob b = { .file_id = cop, .subtype = TREC_PERLCODE_SUBTYPE };
	uint8_t *buf;
	size_t len;
	uint32_t pid = p->pid;
	int err = s->ops->read ? trec_perl_read_code_from(s->ops->read, s->ctx, pid, p->off, cop,
							  key, &c)
			       : trec_perl_read_code(pid, p->off, cop, key, &c);

	if (err)
		return err;
	err = trec_perlcode_encode(&c.c, &buf, &len);
	trec_perlcode_owned_free(&c);
	if (err)
		return err;
	b.len = (uint32_t)len;
	b.data = buf;
	err = s->ops->write_blob(s->ctx, TREC_REC_INTERP_CODE, &b);
	free(buf);
	return err ? err : 1;
}

void trec_perl_sync_trace(struct trec_perl_sync *s, uint32_t pid,
			  const struct trec_frame *frames, uint32_t n)
{
	struct perl_pid *p = NULL;

	if (!s)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct trec_frame *f = &frames[i];
		int ret;

		if (f->kind != TREC_FRAME_PERL || (f->flags & TREC_FRAME_F_ERROR))
			continue;
		if (!p) {
			pthread_mutex_lock(&s->lock);
			p = pid_of(s, pid);
			if (!p || !p->off) {
				pthread_mutex_unlock(&s->lock);
				return;
			}
		}
		ret = trec_perl_seen_note(p->seen, f->file_id, f->addr_or_line);
		if (ret)
			continue; /* seen (or no memory to remember: skip) */
		ret = describe(s, p, f->file_id, f->addr_or_line);
		if (ret == 1)
			s->stats.code_written++;
		else if (ret == -ESTALE)
			s->stats.code_stale++;
		else
			s->stats.code_unreadable++;
	}
	if (p)
		pthread_mutex_unlock(&s->lock);
}

void trec_perl_sync_exec(struct trec_perl_sync *s, uint32_t pid)
{
	struct perl_pid *p;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	p = pid_of(s, pid);
	if (p)
		trec_perl_seen_clear(p->seen);
	pthread_mutex_unlock(&s->lock);
}

void trec_perl_sync_remove(struct trec_perl_sync *s, uint32_t pid)
{
	struct perl_pid *p;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	p = pid_of(s, pid);
	if (p) {
		trec_perl_seen_free(p->seen);
		*p = s->pids[--s->num_pids];
		s->ops->del_proc(s->ctx, pid);
	}
	pthread_mutex_unlock(&s->lock);
}

void trec_perl_sync_get_stats(struct trec_perl_sync *s, struct trec_perl_sync_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	pthread_mutex_unlock(&s->lock);
}
