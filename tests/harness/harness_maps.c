// SPDX-License-Identifier: MIT
/* Per-case maps: through pid_sync for a live process, else from the case file. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "harness_maps.h"
#include "../unit/fake_delta_sink.h"

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void note_file(struct case_maps *cm, uint64_t file_id, const char *path)
{
	for (size_t i = 0; i < cm->num_files; i++)
		if (cm->files[i].file_id == file_id)
			return;
	struct known_file *v = realloc(cm->files, (cm->num_files + 1) * sizeof(*v));
	if (!v)
		return;
	cm->files = v;
	struct known_file *f = &cm->files[cm->num_files];
	memset(f, 0, sizeof(*f));
	f->file_id = file_id;
	if (!(f->path = strdup(path)))
		return;
	cm->num_files++;
	f->dwfl = dwfl_begin(&dwfl_cb);
	if (f->dwfl) {
		f->mod = dwfl_report_elf(f->dwfl, path, path, -1, 0, false);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
}

struct known_file *file_by_id(struct case_maps *cm, uint64_t file_id)
{
	for (size_t i = 0; i < cm->num_files; i++)
		if (cm->files[i].file_id == file_id)
			return &cm->files[i];
	return NULL;
}

const char *symbolize(const struct known_file *f, uint64_t vaddr)
{
	const char *n = f && f->mod ? dwfl_module_addrname(f->mod, vaddr) : NULL;
	return n ? n : "??";
}

/* ---- filling the maps with trecord's pid sync (live process) ---------- */

static int ops_lpm_update(void *ctx, const struct trec_pid_page_key *k,
			  const struct trec_pid_page_value *v)
{
	return harness_lpm_update(&((struct case_maps *)ctx)->env, k, v);
}

static int ops_lpm_delete(void *ctx, const struct trec_pid_page_key *k)
{
	return harness_lpm_delete(&((struct case_maps *)ctx)->env, k);
}

static void ops_load_deltas(void *ctx, uint64_t file_id, int fd, uint64_t size, const char *name)
{
	/* Unthreaded loader: loads at once, like trecord's loader thread would. */
	trec_delta_loader_submit(((struct case_maps *)ctx)->loader, file_id, fd, size, name);
}

static int ops_write_file(void *ctx, const struct trec_file_info *f)
{
	note_file(ctx, f->file_id, f->path);
	return 0;
}

static int ops_exec_mapping(void *ctx, uint32_t pid, uint64_t file_id, const char *open_path,
			    uint64_t bias)
{
	struct case_maps *cm = ctx;
	int err = cm->php ? harness_php_mapping(cm->php, pid, file_id, open_path, bias) : 0;

	if (!err && cm->py)
		err = harness_py_on_mapping(cm->py, pid, file_id, open_path, bias);
	if (!err && cm->perl)
		err = harness_perl_on_mapping(cm->perl, pid, file_id, open_path, bias);
	return err;
}

static uint64_t ops_now_ns(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

const struct trec_pid_sync_ops sync_ops = {
	.lpm_update = ops_lpm_update,
	.lpm_delete = ops_lpm_delete,
	.load_deltas = ops_load_deltas,
	.write_file = ops_write_file,
	.exec_mapping = ops_exec_mapping,
	.now_ns = ops_now_ns,
};

int maps_from_pid_sync(struct case_maps *cm, uint32_t pid, uint32_t *deltas,
			      uint32_t *infos)
{
	struct trec_delta_loader loader;
	int err = trec_delta_loader_init(&loader, &fake_sink_ops, cm->env.sink, false);
	if (err)
		return err;
	cm->loader = &loader;
	struct trec_pid_sync *s = trec_pid_sync_new(&sync_ops, cm, false);
	err = s ? trec_pid_sync_pid(s, pid) : -ENOMEM;
	trec_delta_loader_drain(&loader, 0); /* unthreaded: nothing is queued */
	*deltas = (uint32_t)loader.deltas_used;
	*infos = (uint32_t)loader.infos_used;
	if (!err && loader.failed)
		err = -ENODATA;
	trec_pid_sync_free(s);
	trec_delta_loader_destroy(&loader);
	cm->loader = NULL;
	return err;
}

/* ---- filling the maps from the case file ------------------------------ */

static int add_case_mapping(struct case_maps *cm, const struct harness_case *c,
			    const struct harness_map *m)
{
	struct trec_file f;
	uint64_t vaddr;
	/* Anonymous memory: JIT code, walked by frame pointer. */
	if (!m->path[0])
		return harness_lpm_add_range(&cm->env, c->pid, m->start, m->end, 0, 0,
					     trec_pid_sync_unwinder(m->path, NULL));
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = trec_file_describe(fd, m->path, &f);
	close(fd);
	if (err)
		return err;
	trec_file_vaddr_of_offset(&f, m->offset, &vaddr);
	uint64_t bias = m->start - vaddr;
	note_file(cm, f.file_id, m->path);
	if (cm->py && (err = harness_py_case_mapping(cm->py, c, f.file_id, m->path, bias)))
		fprintf(stderr, "%s: python: %s\n", m->path, strerror(-err));
	if (cm->php && (err = harness_php_mapping(cm->php, c->pid, f.file_id, m->path, bias)))
		fprintf(stderr, "%s: php: %s\n", m->path, strerror(-err));
	if (cm->perl && (err = harness_perl_case_mapping(cm->perl, c, f.file_id, m->path, bias)))
		fprintf(stderr, "%s: perl: %s\n", m->path, strerror(-err));
	if (!trec_delta_store_has(cm->store, f.file_id)) {
		struct trec_file_deltas d;
		err = trec_deltas_extract(m->path, &d);
		if (!err)
			err = trec_delta_store_load(cm->store, f.file_id, &d);
		trec_file_deltas_free(&d);
		if (err)
			fprintf(stderr, "%s: no deltas: %s\n", m->path, strerror(-err));
	}
	err = harness_lpm_add_range(&cm->env, c->pid, m->start, m->end, f.file_id, bias,
				    trec_pid_sync_unwinder(m->path, &f));
	trec_file_release(&f);
	return err;
}

int maps_from_case(struct case_maps *cm, const struct harness_case *c, uint32_t *deltas,
			  uint32_t *infos)
{
	cm->store = trec_delta_store_new(&fake_sink_ops, cm->env.sink);
	if (!cm->store)
		return -ENOMEM;
	for (size_t i = 0; i < c->num_maps; i++)
		add_case_mapping(cm, c, &c->maps[i]);
	/* The "synced" marker, last, as trecord writes it. */
	struct trec_pid_page_key k;
	struct trec_pid_page_value v = { 0 };
	trec_lpm_key(&k, c->pid, 0, 64);
	trec_delta_store_usage(cm->store, deltas, infos, NULL, NULL);
	return harness_lpm_update(&cm->env, &k, &v);
}

void case_maps_free(struct case_maps *cm)
{
	for (size_t i = 0; i < cm->num_files; i++) {
		free(cm->files[i].path);
		if (cm->files[i].dwfl)
			dwfl_end(cm->files[i].dwfl);
	}
	free(cm->files);
	free(cm->env.lpm);
	harness_py_free(cm->py);
	harness_php_free(cm->php);
	harness_perl_free(cm->perl);
	trec_delta_store_free(cm->store);
	fake_sink_free(cm->env.sink);
}

/* The bias of file_id in pid, from the LPM entries. */
