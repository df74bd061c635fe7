// SPDX-License-Identifier: MIT
/* The Python part of a harness case; see harness_python.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness_python.h"
#include "harness_sink.h"
#include "record/interp/python/python_codeobj.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_sync.h"
#include "record/interp/python/python_tsd.h"

struct harness_py {
	struct harness_env *env;
	struct trec_py_sync *sync;     /* live */
	struct trec_py_process proc;   /* offline: what trec_py_sync keeps per pid */
	bool have_proc;
	struct trec_pyframes *store;   /* PYCODE records, as treport holds them */
};

static int op_set_proc(void *ctx, uint32_t pid, const void *v)
{
	const struct trec_py_proc_info *info = v;
	struct harness_env *e = ((struct harness_py *)ctx)->env;
	for (size_t i = 0; i < e->num_py_procs; i++)
		if (e->py_procs[i].pid == pid) {
			e->py_procs[i].info = *info;
			return 0;
		}
	if (e->num_py_procs == HARNESS_MAX_PY)
		return -ENOSPC;
	e->py_procs[e->num_py_procs].pid = pid;
	e->py_procs[e->num_py_procs++].info = *info;
	return 0;
}

static int op_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	return type == TREC_REC_PYCODE ? trec_pyframes_add(((struct harness_py *)ctx)->store, b)
				       : -EINVAL;
}

struct harness_py *harness_py_new(struct harness_env *env)
{
	struct harness_py *p = calloc(1, sizeof(*p));
	struct trec_interp_sink sink = { harness_sink_set_range, op_set_proc, harness_sink_del_proc,
					 op_write_blob, NULL };
	if (!p)
		return NULL;
	p->env = env;
	p->store = trec_pyframes_new();
	sink.ctx = p;
	p->sync = trec_py_sync_new(&sink, false);
	if (!p->store || !p->sync) {
		harness_py_free(p);
		return NULL;
	}
	return p;
}

void harness_py_free(struct harness_py *p)
{
	if (!p)
		return;
	trec_py_sync_free(p->sync);
	trec_pyframes_free(p->store);
	free(p);
}

int harness_py_on_mapping(struct harness_py *p, uint32_t pid, uint64_t file_id,
			  const char *open_path, uint64_t bias)
{
	int ret = trec_interp_table_mapping(trec_py_sync_table(p->sync), pid, file_id, open_path, bias);
	return ret < 0 ? ret : 0;
}

int harness_py_case_mapping(struct harness_py *p, const struct harness_case *c,
			    uint64_t file_id, const char *path, uint64_t bias)
{
	struct trec_py_process *proc = &p->proc;
	struct trec_offset_range r;
	int err;

	if (p->have_proc)
		return 0; /* one interpreter per process */
	err = trec_py_detect(path, &proc->offsets, NULL, 0);
	if (err)
		return err == -ENOENT ? 0 : err;
	/* trecord searches the live process's files; here, the case's. */
	err = -ENOENT;
	for (size_t i = 0; i < c->num_maps && err; i++)
		err = trec_tsd_detect_file(c->maps[i].path, &proc->tsd);
	if (err)
		return err;
	snprintf(proc->path, sizeof(proc->path), "%s", path);
	proc->bias = bias;
	trec_py_proc_info_init(&proc->offsets, bias, &proc->tsd, &proc->info);
	trec_py_offset_range(&proc->offsets, &r);
	if ((err = harness_sink_set_range(p, file_id, &r)) || (err = op_set_proc(p, c->pid, &proc->info)))
		return err;
	p->have_proc = true;
	return 0;
}

static int read_captured(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return harness_read(ctx, addr, buf, len);
}

/* What trecord's PYCODE writer does for one code object, reading the
 * captured memory instead of the live process. */
static int describe_captured(struct harness_py *p, uint32_t pid, const struct trec_frame *f)
{
	struct trec_pycode_owned code;
	struct trec_blob blob = { .file_id = f->file_id, .subtype = TREC_PYCODE_SUBTYPE_V1 };
	uint8_t *buf = NULL;
	size_t len;
	int err = trec_py_read_code_from(read_captured, p->env, pid, &p->proc, f->file_id, &code);
	if (err)
		return err;
	if (code.c.object_id != (uint32_t)f->addr_or_line)
		err = -ESTALE; /* not the object BPF saw */
	if (!err)
		err = trec_pycode_encode(&code.c, &buf, &len);
	trec_pycode_owned_free(&code);
	if (err)
		return err;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = trec_pyframes_add(p->store, &blob);
	free(buf);
	return err;
}

int harness_py_describe(struct harness_py *p, uint32_t pid, const struct trec_trace *t, bool live)
{
	int missing = 0;

	if (live)
		trec_interp_table_trace(trec_py_sync_table(p->sync), pid, t->frames, t->num_frames,
					NULL);
	for (unsigned i = 0; i < t->num_frames && i < TREC_MAX_FRAMES; i++) {
		const struct trec_frame *f = &t->frames[i];
		struct trec_pyframe_sym sym;

		if (f->kind != TREC_FRAME_PYTHON || (f->flags & TREC_FRAME_F_ERROR))
			continue;
		if (harness_py_lookup(p, pid, f, &sym) == 0)
			continue;
		if (live || !p->have_proc || describe_captured(p, pid, f) ||
		    harness_py_lookup(p, pid, f, &sym))
			missing++;
	}
	return missing;
}

int harness_py_lookup(const struct harness_py *p, uint32_t pid, const struct trec_frame *f,
		      struct trec_pyframe_sym *sym)
{
	struct trec_rec_frame rf = { f->file_id, f->addr_or_line, f->kind, f->flags };
	return trec_pyframes_lookup(p->store, pid, &rf, sym);
}

bool harness_py_found(const struct harness_py *p)
{
	return p->env->num_py_procs > 0;
}
