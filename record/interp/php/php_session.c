// SPDX-License-Identifier: MIT
/* PHP support bound to a trecord session; see php_session.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "format/containers/vec.h"
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/interp/interp_session.h"
#include "record/interp/php/php_code.h"
#include "record/interp/php/php_detect.h"
#include "record/interp/php/php_session.h"
#include "record/io/metrics.h"

struct php_file {
	uint64_t file_id;
	int status; /* 1 a Zend engine we unwind, 0 not one, < 0 unsupported */
	struct trec_php_engine engine;
};

struct php_pid {
	uint32_t pid;
	const struct trec_php_layout *layout;
};

struct php_session {
	/* Its out, maps and loader; file_of routes ranges itself (its warning
	 * and counting differ from the glue's set_range). */
	struct trec_interp_glue glue;
	bool verbose;
	pthread_mutex_t lock;
	/* Few files and pids are PHP: plain arrays. */
	struct php_file *files;
	size_t num_files, cap_files;
	struct php_pid *pids;
	size_t num_pids, cap_pids;
	struct trec_phpcode_cache *code;
	uint64_t engines, unsupported, set_up, written, unreadable, stale;
};

static int php_start(void **state, const struct trec_interp_env *env)
{
	struct php_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	trec_interp_glue_init(&s->glue, env, env->fd->php_procs, "php");
	s->verbose = env->verbose;
	s->code = trec_phpcode_cache_new();
	if (!s->code) {
		free(s);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	*state = s;
	return 0;
}

static void php_stop(void *state)
{
	struct php_session *s = state;

	trec_phpcode_cache_free(s->code);
	free(s->files);
	free(s->pids);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The detection result for a file, computed on first sight. */
static const struct php_file *file_of(struct php_session *s, uint64_t file_id, const char *path)
{
	struct trec_offset_range r;
	struct php_file *f;
	char err[512] = "";

	for (size_t i = 0; i < s->num_files; i++)
		if (s->files[i].file_id == file_id)
			return &s->files[i];
	if (TREC_GROW(s->files, s->cap_files, s->num_files + 1, 8))
		return NULL;
	f = &s->files[s->num_files++];
	memset(f, 0, sizeof(*f));
	f->file_id = file_id;
	/* Unlocked: detection reads the file, and the first interpreter loads
	 * its BPF program (a second under load), while the writer thread's
	 * trace, exec and exit calls wait for the lock. Only this thread (the
	 * sync thread) adds files. */
	pthread_mutex_unlock(&s->lock);
	int status = trec_php_detect(path, &f->engine, err, sizeof(err)), need = 0;

	if (status == 0) {
		trec_php_offset_range(&f->engine, &r);
		/* No route to a program that is not there: its frames stay native. */
		if (s->glue.bpf)
			need = trec_bpf_need_unwinder(s->glue.bpf, r.program_index, err, sizeof(err));
	}
	pthread_mutex_lock(&s->lock);
	f->status = status;
	if (f->status == -ENOENT) {
		f->status = 0;
		return f;
	}
	if (f->status) {
		s->unsupported++;
		if (s->verbose)
			fprintf(stderr, "trecord: no php stacks: %s\n", err);
		return f;
	}
	if (need) {
		if (!s->unsupported++ || s->verbose)
			fprintf(stderr, "trecord: warning: no php stacks: %s\n", err);
		f->status = -ENOENT;
		return f;
	}
	if (bpf_map_update_elem(s->glue.ranges_fd, &file_id, &r, BPF_ANY)) {
		f->status = -errno;
		s->unsupported++;
		return f;
	}
	f->status = 1;
	s->engines++;
	if (s->verbose)
		fprintf(stderr, "trecord: php %u.%u (Zend API %u) in %s (VM loop %s.cold part)\n",
			f->engine.layout->major, f->engine.layout->minor, f->engine.layout->api, path,
			f->engine.cold_start ? "and its " : "without a ");
	return f;
}

static struct php_pid *pid_of(struct php_session *s, uint32_t pid)
{
	for (size_t i = 0; i < s->num_pids; i++)
		if (s->pids[i].pid == pid)
			return &s->pids[i];
	return NULL;
}

static int php_mapping(void *state, uint32_t pid, uint64_t file_id, const char *open_path,
		       uint64_t bias)
{
	struct php_session *s = state;
	struct trec_php_proc_info info;
	const struct php_file *f;
	struct php_pid *p;
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
	if (!p) {
		if (TREC_GROW(s->pids, s->cap_pids, s->num_pids + 1, 8)) {
			ret = -ENOMEM;
			goto out;
		}
		p = &s->pids[s->num_pids++];
		p->pid = pid;
		s->set_up++;
	}
	p->layout = f->engine.layout;
	trec_php_proc_info_init(&f->engine, bias, &info);
	ret = trec_interp_glue_set_proc(&s->glue, pid, &info);
	ret = ret ? ret : 1;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static void php_trace(void *state, uint32_t pid, const struct trec_frame *frames, uint32_t n)
{
	struct php_session *s = state;
	const struct php_pid *p = NULL;

	for (uint32_t i = 0; i < n; i++) {
		const struct trec_frame *f = &frames[i];
		int ret;

		if (f->kind != TREC_FRAME_PHP || (f->flags & TREC_FRAME_F_ERROR))
			continue;
		if (!p) {
			pthread_mutex_lock(&s->lock);
			p = pid_of(s, pid);
			if (!p) {
				pthread_mutex_unlock(&s->lock);
				return;
			}
		}
		ret = trec_phpcode_cache_note(s->code, trec_interp_glue_write_blob, &s->glue, pid,
					      p->layout, f->file_id, (uint32_t)f->addr_or_line);
		if (ret == 1)
			s->written++;
		else if (ret == -ESTALE)
			s->stale++;
		else if (ret < 0)
			s->unreadable++;
	}
	if (p)
		pthread_mutex_unlock(&s->lock);
}

static void php_exec(void *state, uint32_t pid)
{
	struct php_session *s = state;

	pthread_mutex_lock(&s->lock);
	trec_phpcode_cache_forget_pid(s->code, pid);
	pthread_mutex_unlock(&s->lock);
}

static void php_exit(void *state, uint32_t pid)
{
	struct php_session *s = state;
	struct php_pid *p;

	pthread_mutex_lock(&s->lock);
	p = pid_of(s, pid);
	if (p) {
		*p = s->pids[--s->num_pids];
		trec_interp_glue_del_proc(&s->glue, pid);
	}
	trec_phpcode_cache_forget_pid(s->code, pid);
	pthread_mutex_unlock(&s->lock);
}

static void php_stats(void *state, struct trecord_counters *cnt)
{
	struct php_session *s = state;

	pthread_mutex_lock(&s->lock);
	trecord_set(cnt, TRECORD_METRIC_PHP_ENGINES, s->engines);
	trecord_set(cnt, TRECORD_METRIC_PHP_UNSUPPORTED, s->unsupported);
	trecord_set(cnt, TRECORD_METRIC_PHP_PIDS, s->set_up);
	trecord_set(cnt, TRECORD_METRIC_PHP_CODE_WRITTEN, s->written);
	trecord_set(cnt, TRECORD_METRIC_PHP_CODE_UNREADABLE, s->unreadable);
	trecord_set(cnt, TRECORD_METRIC_PHP_CODE_STALE, s->stale);
	pthread_mutex_unlock(&s->lock);
}

const struct trec_interp_ops trec_php_interp = {
	.name = "php",
	.start = php_start,
	.stop = php_stop,
	.on_mapping = php_mapping,
	.on_trace = php_trace,
	.on_exec = php_exec,
	.on_exit = php_exit,
	.publish_stats = php_stats,
};
