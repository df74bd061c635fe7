// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "format/containers/vec.h"
#include "record/procs/pid_sync_internal.h"

/* What one sync builds: the pid's new entries, snapshot and signatures,
 * and the files whose deltas load once the entries are in. */
struct sync_scratch {
	struct trec_vec ents, snap, sigs, pending;
};

static void scratch_free(struct sync_scratch *sc)
{
	for (size_t i = 0; i < sc->pending.n; i++)
		pid_sync_close_opened((struct opened *)sc->pending.v + i);
	trec_vec_free(&sc->pending);
	trec_vec_free(&sc->ents);
	trec_vec_free(&sc->sigs);
	trec_vec_free(&sc->snap);
}

/* The file of an executable mapping: its id and bias (0, 0 for anonymous
 * memory or a bias the trie cannot hold), FILE record, exec_files entry
 * and interpreter detection. */
static void resolve_mapping(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
			    struct opened *o, struct sync_scratch *sc, uint64_t *file_id,
			    uint64_t *bias)
{
	uint64_t vaddr;
	struct opened *p;

	*file_id = *bias = 0;
	if (pid_sync_resolve_file(s, pid, m, o))
		pid_sync_vlog(s, "pid %u: cannot open %s", pid, m->path);
	if (!o->f)
		return;
	trec_file_vaddr_of_offset(o->f, m->offset, &vaddr);
	if ((m->start - vaddr) & ~TREC_BIAS_MASK) {
		/* Does not fit the LPM value; frames stay raw pcs. */
		pid_sync_vlog(s, "pid %u: %s: bias %#llx not representable", pid, m->path,
			      (unsigned long long)(m->start - vaddr));
		return;
	}
	*bias = m->start - vaddr;
	*file_id = o->f->file_id;
	/* interpreter detection reads the file through o->path */
	if (s->ops->exec_mapping)
		s->ops->exec_mapping(s->ctx, pid, *file_id, o->path, *bias);
	if ((p = trec_vec_push(&sc->pending)) && !pid_sync_note_file(s, o, p))
		sc->pending.n--;
	pid_sync_publish_exec_file(s, m, o->f, vaddr);
}

uint8_t trec_pid_sync_unwinder(const char *path, const struct trec_file *f)
{
	if (f && f->is_elf && f->is_go)
		return TREC_UNWIND_GO;
	if (f)
		return f->is_elf && f->has_cfi ? TREC_PROG_UNWIND_NATIVE : TREC_UNWIND_FRAME_POINTER;
	/* [vdso] is a file; [vsyscall] is in the kernel's half. "[anon:NAME]"
	 * is a named anonymous mapping, as JITs may make. */
	if (path[0] == '[' && strncmp(path, "[anon:", 6))
		return TREC_PROG_UNWIND_NATIVE;
	return TREC_UNWIND_FRAME_POINTER;
}

static bool is_anonymous(const struct trec_proc_map *m)
{
	return !m->path[0] || !strncmp(m->path, "[anon:", 6);
}

/* An anonymous mapping whose code has deltas of its own: one LPM range
 * per block, biased by the block's start, frames kept as raw pcs. */
static int add_anon_deltas(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
			   struct sync_scratch *sc, bool *done)
{
	uint64_t id = 0, block;
	int err = 0;

	*done = false;
	if (!s->ops->anon_exec_mapping)
		return 0;
	block = s->ops->anon_exec_mapping(s->ctx, pid, m->start, m->end, &id);
	if (!block || !id || (m->end - m->start) % block)
		return 0;
	for (uint64_t a = m->start; a < m->end && !err; a += block)
		err = trec_lpm_add_range(&sc->ents, pid, a, a + block,
					 &(struct trec_pid_page_value){
						 .file_id = id,
						 .bias_and_unwinder = a | ((uint64_t)TREC_UNWIND_ANON_DELTAS
									   << TREC_UNWINDER_SHIFT),
					 });
	*done = true;
	return err;
}

/* One executable mapping into the scratch lists. */
static int add_mapping(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
		       struct sync_scratch *sc)
{
	struct opened o = { .fd = -1 };
	uint64_t file_id, bias;
	struct trec_mapping *tm;
	struct map_sig *sg;
	bool anon_deltas = false;
	int err = 0;

	resolve_mapping(s, pid, m, &o, sc, &file_id, &bias);
	pid_sync_close_opened(&o);
	if (!o.f && is_anonymous(m))
		err = add_anon_deltas(s, pid, m, sc, &anon_deltas);
	if (!anon_deltas && !err)
		err = trec_lpm_add_range(&sc->ents, pid, m->start, m->end,
					 &(struct trec_pid_page_value){
						 .file_id = file_id,
						 .bias_and_unwinder = bias |
							((uint64_t)trec_pid_sync_unwinder(m->path, o.f)
							 << TREC_UNWINDER_SHIFT),
					 });
	tm = trec_vec_push(&sc->snap);
	sg = trec_vec_push(&sc->sigs);
	if (err || !tm || !sg)
		return -ENOMEM;
	*tm = (struct trec_mapping){
		.start = m->start,
		.end = m->end,
		.file_offset = m->offset,
		.file_id = file_id,
		.bias = bias,
		.inode = m->inode,
		.mtime_ns = o.f ? o.f->mtime_ns : 0,
		.dev_major = m->dev_major,
		.dev_minor = m->dev_minor,
		.prot = m->prot,
		.path = m->path,
		.build_id_len = o.f && file_id ? o.f->build_id_len : 0,
		.build_id = o.f && file_id ? o.f->build_id : NULL,
	};
	*sg = (struct map_sig){ m->start, m->end, m->offset, file_id };
	return 0;
}

/* A changed snapshot goes into the recording. */
static void write_snapshot(struct trec_pid_sync *s, uint32_t pid, const struct trec_vec *snap)
{
	struct trec_mapping_snapshot sn = {
		.time_ns = s->ops->now_ns(s->ctx),
		.pid = pid,
		.num_mappings = snap->n,
		.mappings = snap->v,
	};

	s->stats.sync_changed++;
	if (s->ops->write_mappings)
		s->ops->write_mappings(s->ctx, &sn);
	/* Still loading libraries: let the next unknown pc report at once. */
	if (s->ops->report_reset)
		s->ops->report_reset(s->ctx, pid);
}

/* Deltas of the files seen for the first time, now that the pid's
 * entries are in. */
static void load_pending(struct trec_pid_sync *s, struct trec_vec *pending)
{
	for (size_t i = 0; i < pending->n; i++) {
		struct opened *o = (struct opened *)pending->v + i;
		/* The vdso's fd is ours to keep: hand over a copy. */
		int fd = o->fd >= 0 ? o->fd : dup(s->vdso_fd);

		o->fd = -1;
		if (fd >= 0)
			s->ops->load_deltas(s->ctx, o->f->file_id, fd, o->f->size, o->f->path);
	}
}

static int mapping_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct trec_mapping *)a)->start, y = ((const struct trec_mapping *)b)->start;

	return x < y ? -1 : x > y;
}

static int sig_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct map_sig *)a)->start, y = ((const struct map_sig *)b)->start;

	return x < y ? -1 : x > y;
}

/* Reads the pid's mappings; -ESRCH for a pid gone or a zombie. */
static int read_maps(struct trec_pid_sync *s, uint32_t pid, struct trec_proc_maps *maps)
{
	int err = trec_proc_maps_read_pid(pid, maps);

	if (!err && !maps->n) {
		/* A zombie (exited, not reaped yet): nothing to sync, and a
		 * report that arrives after its exit must not resurrect it. */
		trec_proc_maps_free(maps);
		trec_pid_sync_remove(s, pid);
		err = -ESRCH;
	}
	if (err) {
		s->stats.sync_gone++;
		return err == -ENOENT || err == -ESRCH ? -ESRCH : err;
	}
	s->stats.syncs++;
	return 0;
}

int trec_pid_sync_pid(struct trec_pid_sync *s, uint32_t pid)
{
	struct sync_scratch sc = {
		.ents = TREC_VEC_INIT(struct trec_lpm_entry),
		.snap = TREC_VEC_INIT(struct trec_mapping),
		.sigs = TREC_VEC_INIT(struct map_sig),
		.pending = TREC_VEC_INIT(struct opened),
	};
	uint64_t t0 = s->ops->now_ns(s->ctx), image[2];
	struct pid_state empty = { 0 }, *ps;
	struct trec_proc_maps maps;
	bool changed;
	int err;

	/* Before the maps: an exec in between makes the marker name the old
	 * image, which BPF then refuses for the new one (never the reverse). */
	trec_proc_image_id(pid, image);
	err = read_maps(s, pid, &maps);

	if (err)
		return err;
	/* File mappings first: interpreter detection may explain the
	 * anonymous ones (CPython's trampolines lie below libpython). */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < maps.n && !err; i++)
			if ((maps.v[i].prot & PROT_EXEC) && is_anonymous(&maps.v[i]) == pass)
				err = add_mapping(s, pid, &maps.v[i], &sc);
	if (err)
		goto out;
	/* The snapshot and signatures in address order, as /proc has them. */
	qsort(sc.snap.v, sc.snap.n, sizeof(struct trec_mapping), mapping_cmp);
	qsort(sc.sigs.v, sc.sigs.n, sizeof(struct map_sig), sig_cmp);

	if (sc.ents.n)
		qsort(sc.ents.v, sc.ents.n, sizeof(struct trec_lpm_entry), trec_lpm_entry_cmp);
	ps = trec_u64map_get(&s->pids, pid);
	pid_state_apply_entries(s, ps ? ps : &empty, sc.ents.v, sc.ents.n);
	pid_state_write_marker(s, pid, image);
	changed = !ps || !pid_state_sigs_equal(ps, sc.sigs.v, sc.sigs.n);
	if (changed)
		write_snapshot(s, pid, &sc.snap);
	if (!ps && !(ps = pid_state_get(s, pid))) {
		err = -ENOMEM;
		goto out;
	}
	if (changed)
		pid_state_keep_snapshot(ps, sc.snap.v, sc.snap.n);
	ps->synced_ns = t0;
	memcpy(ps->image, image, sizeof(ps->image));
	pid_state_set_entries(s, ps, sc.ents.v, sc.ents.n, sc.sigs.v, sc.sigs.n);
	sc.ents.v = sc.sigs.v = NULL;
	load_pending(s, &sc.pending);
	pid_sync_vlog(s, "pid %u: synced %zu mappings, %zu LPM entries%s in %.1f ms", pid,
		      sc.snap.n, ps->num_ents, changed ? "" : " (unchanged)",
		      (s->ops->now_ns(s->ctx) - t0) / 1e6);
out:
	scratch_free(&sc);
	trec_proc_maps_free(&maps);
	return err;
}

int trec_pid_sync_fork(struct trec_pid_sync *s, uint32_t child, uint32_t parent)
{
	const struct pid_state *pp = trec_u64map_get(&s->pids, parent);
	struct pid_state empty = { 0 }, *cs;
	struct trec_lpm_entry *ents = NULL;
	struct map_sig *sigs = NULL;
	uint32_t child_be = __builtin_bswap32(child);

	if (!pp || !pp->snap || child == parent)
		return -ENOENT;
	ents = malloc((pp->num_ents ? pp->num_ents : 1) * sizeof(*ents));
	sigs = malloc((pp->num_sigs ? pp->num_sigs : 1) * sizeof(*sigs));
	if (!ents || !sigs)
		goto nomem;
	/* The same keys but for the pid: still sorted, as the pid is a
	 * common prefix of every key. */
	for (size_t i = 0; i < pp->num_ents; i++) {
		ents[i] = pp->ents[i];
		ents[i].k.pid_be = child_be;
	}
	memcpy(sigs, pp->sigs, pp->num_sigs * sizeof(*sigs));
	cs = trec_u64map_get(&s->pids, child);
	pid_state_apply_entries(s, cs ? cs : &empty, ents, pp->num_ents);
	/* The parent's image: BPF trusts it only while the child runs it (it
	 * may have exec'd already, its exec event still on its way). */
	pid_state_write_marker(s, child, pp->image);
	/* Interpreter detection, as a sync of the child would do it. */
	for (size_t i = 0; i < pp->num_snap && s->ops->exec_mapping; i++) {
		const struct trec_mapping *m = &pp->snap[i];
		char path[4096];

		if (m->file_id && trec_pid_sync_file(s, m->file_id, path, sizeof(path)))
			s->ops->exec_mapping(s->ctx, child, m->file_id, path, m->bias);
	}
	if (s->ops->write_mappings) {
		struct trec_mapping_snapshot sn = {
			.time_ns = s->ops->now_ns(s->ctx),
			.pid = child,
			.num_mappings = pp->num_snap,
			.mappings = pp->snap,
		};

		s->ops->write_mappings(s->ctx, &sn);
	}
	if (!cs && !(cs = pid_state_get(s, child)))
		goto nomem;
	/* pp is still valid: get_pid_state adds an entry, which may move
	 * the map's values but not what they point to. */
	pid_state_share_snapshot(cs, pp);
	cs->synced_ns = s->ops->now_ns(s->ctx);
	memcpy(cs->image, pp->image, sizeof(cs->image));
	pid_state_set_entries(s, cs, ents, pp->num_ents, sigs, pp->num_sigs);
	s->stats.fork_copies++;
	pid_sync_vlog(s, "pid %u: %zu LPM entries copied from its parent %u", child, cs->num_ents, parent);
	return 0;
nomem:
	free(ents);
	free(sigs);
	return -ENOMEM;
}

/* Files nearly every process maps. */
static bool is_common_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(path, "[vdso]") || !strncmp(base, "libc.so", 7) ||
	       !strncmp(base, "ld-linux", 8);
}

int trec_pid_sync_prefetch(struct trec_pid_sync *s, uint32_t pid)
{
	struct trec_proc_maps maps;
	int err = trec_proc_maps_read_pid(pid, &maps);

	if (err)
		return err;
	for (size_t i = 0; i < maps.n && s->ops->load_deltas; i++) {
		const struct trec_proc_map *m = &maps.v[i];
		struct opened o = { .fd = -1 };
		struct file_state *fs;
		int fd;

		if (!(m->prot & PROT_EXEC) || !is_common_file(m->path) ||
		    pid_sync_resolve_file(s, pid, m, &o) || !o.f || !o.f->is_elf ||
		    !(fs = pid_sync_file_state(s, o.f->file_id)) || fs->deltas_tried) {
			pid_sync_close_opened(&o);
			continue;
		}
		/* FILE records wait until a recorded process maps the file. */
		fs->deltas_tried = true;
		fd = o.fd >= 0 ? o.fd : dup(s->vdso_fd);
		if (fd >= 0)
			s->ops->load_deltas(s->ctx, o.f->file_id, fd, o.f->size, o.f->path);
	}
	trec_proc_maps_free(&maps);
	return 0;
}
