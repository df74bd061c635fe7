// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/procs/exit_fifo.h"
#include "record/procs/file_id.h"
#include "record/procs/lpm.h"
#include "record/procs/pid_sync.h"
#include "record/procs/proc_maps.h"
#include "format/containers/u64map.h"

struct lpm_entry {
	struct trec_pid_page_key k;
	struct trec_pid_page_value v;
};

/* What a snapshot is compared on to decide whether it changed. */
struct map_sig {
	uint64_t start, end, offset, file_id;
};

struct pid_state {
	struct lpm_entry *ents; /* sorted by key */
	size_t num_ents;
	struct map_sig *sigs;
	size_t num_sigs;
	/* The last snapshot written, paths in one block: a forked child
	 * starts with it (build ids point into the file cache). */
	struct trec_mapping *snap;
	size_t num_snap;
	char *paths;
	uint64_t synced_ns; /* last sync that read the mappings */
};

struct file_state {
	bool written;      /* FILE record is in the recording */
	bool deltas_tried; /* extraction attempted (loaded or failed) */
	bool published;    /* in exec_files, at published_offset */
	uint64_t published_offset;
	const struct trec_file *f; /* owned by the file cache */
};

struct trec_pid_sync {
	const struct trec_pid_sync_ops *ops;
	void *ctx;
	bool verbose;
	struct trec_file_cache *files;
	struct trec_u64map pids;    /* pid -> struct pid_state */
	struct trec_u64map fstates; /* file id -> struct file_state */
	struct trec_exit_fifo exited; /* pids in their exit grace period */
	struct trec_file *vdso;
	int vdso_fd;
	bool vdso_tried;
	struct trec_pid_sync_stats stats;
};

/* An opened mapping: the file, and a path through which it can be read
 * (/proc/self/fd/N of fd, which stays valid after the process exits). */
struct opened {
	struct trec_file *f;
	int fd; /* owned, or -1 */
	char path[64];
};

void trec_lpm_key(struct trec_pid_page_key *k, uint32_t pid, uint64_t addr, uint32_t bits)
{
	k->prefix_len = 32 + bits;
	k->pid_be = __builtin_bswap32(pid);
	k->page_be = __builtin_bswap64(addr);
}

struct trec_pid_sync *trec_pid_sync_new(const struct trec_pid_sync_ops *ops, void *ctx,
					bool verbose)
{
	struct trec_pid_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->verbose = verbose;
	s->vdso_fd = -1;
	s->files = trec_file_cache_new();
	if (!s->files) {
		trec_pid_sync_free(s);
		return NULL;
	}
	return s;
}

static void vlog(const struct trec_pid_sync *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void vlog(const struct trec_pid_sync *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->verbose)
		return;
	va_start(ap, fmt);
	fputs("trecord: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- files ------------------------------------------------------------ */

/* The vdso is not a file: every 64-bit process on this kernel maps the
 * same image as we do, so ours is copied into a memfd and treated as one. */
static struct trec_file *vdso_file(struct trec_pid_sync *s, char *path, size_t pathlen)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct trec_proc_maps self;
	uint64_t size = 0;
	struct stat st;
	int fd;

	if (s->vdso_tried)
		goto out;
	s->vdso_tried = true;
	if (!base || trec_proc_maps_read_pid(getpid(), &self))
		return NULL;
	for (size_t i = 0; i < self.n; i++)
		if (self.v[i].start == base)
			size = self.v[i].end - self.v[i].start;
	trec_proc_maps_free(&self);
	if (!size)
		return NULL;
	fd = memfd_create("trec-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, (const void *)base, size) != (ssize_t)size || fstat(fd, &st) ||
	    trec_file_cache_get(s->files, fd, &st, "[vdso]", &s->vdso)) {
		close(fd);
		s->vdso = NULL;
		return NULL;
	}
	s->vdso_fd = fd;
out:
	if (s->vdso)
		snprintf(path, pathlen, "/proc/self/fd/%d", s->vdso_fd);
	return s->vdso;
}

static int open_mapping(uint32_t pid, const struct trec_proc_map *m, char *path, size_t pathlen)
{
	int fd;

	/* map_files reaches the mapped inode even if it was deleted or lives
	 * in another mount namespace; root/ is the fallback. */
	snprintf(path, pathlen, "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(path, pathlen, "/proc/%u/root%s", pid, m->path);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Strips the " (deleted)" /proc/PID/maps appends to unlinked files. */
static void record_path(const char *in, char *out, size_t outlen)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(in);

	if (n >= sizeof(del) - 1 && !strcmp(in + n - (sizeof(del) - 1), del))
		n -= sizeof(del) - 1;
	snprintf(out, outlen, "%.*s", (int)n, in);
}

static int resolve_file(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
			struct opened *o)
{
	char rpath[4096], opath[128];
	struct stat st;
	int err;

	o->f = NULL;
	o->fd = -1;
	if (!strcmp(m->path, "[vdso]")) {
		o->f = vdso_file(s, o->path, sizeof(o->path));
		return 0;
	}
	if (!m->inode || !m->path[0] || m->path[0] == '[')
		return 0; /* anonymous: JIT code, or [vsyscall] */
	o->fd = open_mapping(pid, m, opath, sizeof(opath));
	if (o->fd < 0)
		return -errno;
	snprintf(o->path, sizeof(o->path), "/proc/self/fd/%d", o->fd);
	record_path(m->path, rpath, sizeof(rpath));
	err = fstat(o->fd, &st) ? -errno : trec_file_cache_get(s->files, o->fd, &st, rpath, &o->f);
	return err;
}

static void close_opened(struct opened *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/* m's value for key, a zeroed one of size bytes if it has none (*created
 * set); NULL on -ENOMEM. */
static void *get_or_new(struct trec_u64map *m, uint64_t key, size_t size, bool *created)
{
	void *v = trec_u64map_get(m, key);
	int err;

	*created = false;
	if (v)
		return v;
	v = calloc(1, size);
	if (!v)
		return NULL;
	trec_u64map_put(m, key, v, &err);
	if (err) {
		free(v);
		return NULL;
	}
	*created = true;
	return v;
}

static struct file_state *file_state(struct trec_pid_sync *s, uint64_t file_id)
{
	bool created;
	struct file_state *fs = get_or_new(&s->fstates, file_id, sizeof(*fs), &created);

	s->stats.files += created;
	return fs;
}

static void write_file_record(struct trec_pid_sync *s, const struct trec_file *f)
{
	struct trec_file_info fi = {
		.file_id = f->file_id,
		.size = f->size,
		.inode = f->inode,
		.mtime_ns = f->mtime_ns,
		.dev_major = f->dev_major,
		.dev_minor = f->dev_minor,
		.path = f->path,
		.build_id_len = f->build_id_len,
		.build_id = f->build_id,
		.debuglink = f->debuglink,
	};

	if (s->ops->write_file)
		s->ops->write_file(s->ctx, &fi);
	/* The report cannot open [vdso]: embed its image. */
	if (f == s->vdso && s->ops->write_blob) {
		uint8_t *img = malloc(f->size);

		if (img && pread(s->vdso_fd, img, f->size, 0) == (ssize_t)f->size) {
			struct trec_blob b = {
				.file_id = f->file_id,
				.subtype = 1, /* the ELF image of a file not on disk */
				.len = f->size,
				.data = img,
			};

			s->ops->write_blob(s->ctx, TREC_REC_BLOB, &b);
		}
		free(img);
	}
}

/*
 * First sight of a file in this recording: its FILE record now; its deltas
 * after the pid's prefixes are in (moved to *pending, which then owns the
 * fd), so a big file's extraction does not keep the whole pid unknown.
 */
static bool note_file(struct trec_pid_sync *s, struct opened *o, struct opened *pending)
{
	struct file_state *fs = file_state(s, o->f->file_id);

	if (!fs)
		return false;
	if (!fs->written) {
		write_file_record(s, o->f);
		fs->written = true;
		fs->f = o->f;
	}
	if (fs->deltas_tried || !s->ops->load_deltas || !o->f->is_elf)
		return false;
	fs->deltas_tried = true;
	*pending = *o;
	o->fd = -1;
	return true;
}

/* Lets the BPF side resolve pcs of the mapping through its VMA before
 * a sync of its process has put it in the trie (a new image, a library
 * ld.so just mapped). Once per file and offset (nearly always one). */
static void publish_exec_file(struct trec_pid_sync *s, const struct trec_proc_map *m,
			      const struct trec_file *f, uint64_t vaddr)
{
	struct file_state *fs = trec_u64map_get(&s->fstates, f->file_id);
	struct trec_exec_file_key k = { 0 };
	struct trec_exec_file_value v = {
		.file_id = f->file_id,
		.vaddr_minus_offset = (int64_t)(vaddr - m->offset),
	};

	if (!s->ops->exec_file || !fs || (fs->published && fs->published_offset == m->offset))
		return;
	if (f != s->vdso) {
		/* The kernel's dev_t: major << 20 | minor. */
		k.dev = (uint64_t)m->dev_major << 20 | m->dev_minor;
		k.inode = m->inode;
		k.mtime_ns = f->mtime_ns;
		k.offset = m->offset;
	}
	if (!s->ops->exec_file(s->ctx, &k, &v)) {
		fs->published = true;
		fs->published_offset = m->offset;
	}
}

const struct trec_file *trec_pid_sync_file(struct trec_pid_sync *s, uint64_t file_id,
					   char *path, size_t pathlen)
{
	const struct file_state *fs = trec_u64map_get(&s->fstates, file_id);

	if (!fs || !fs->f)
		return NULL;
	if (fs->f == s->vdso)
		snprintf(path, pathlen, "/proc/self/fd/%d", s->vdso_fd);
	else
		snprintf(path, pathlen, "%s", fs->f->path);
	return fs->f;
}

/* ---- LPM entries ------------------------------------------------------- */

static int key_cmp(const struct trec_pid_page_key *a, const struct trec_pid_page_key *b)
{
	uint64_t pa = __builtin_bswap64(a->page_be), pb = __builtin_bswap64(b->page_be);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return (a->prefix_len > b->prefix_len) - (a->prefix_len < b->prefix_len);
}

static int ent_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct lpm_entry *)a)->k, &((const struct lpm_entry *)b)->k);
}

struct vec {
	void *v;
	size_t n, cap, elem;
};

static void *vec_push(struct vec *x)
{
	if (x->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 32;
		void *nv = realloc(x->v, nc * x->elem);

		if (!nv)
			return NULL;
		x->v = nv;
		x->cap = nc;
	}
	return (char *)x->v + x->elem * x->n++;
}

static int add_prefixes(struct vec *ents, uint32_t pid, const struct trec_proc_map *m,
			uint64_t file_id, uint64_t bias)
{
	struct trec_lpm_prefix pre[TREC_LPM_MAX_PREFIXES];
	size_t n = trec_lpm_split(m->start, m->end, pre);

	for (size_t i = 0; i < n; i++) {
		struct lpm_entry *e = vec_push(ents);

		if (!e)
			return -ENOMEM;
		trec_lpm_key(&e->k, pid, pre[i].addr, pre[i].bits);
		e->v.file_id = file_id;
		e->v.bias_and_unwinder = bias |
			((uint64_t)TREC_PROG_UNWIND_NATIVE << TREC_UNWINDER_SHIFT);
	}
	return 0;
}

/* Writes the entries that are new or changed, then removes the stale
 * ones: the old and new ranges overlap, so the pid never has a hole. */
static void apply_entries(struct trec_pid_sync *s, struct pid_state *old,
			  const struct lpm_entry *nw, size_t n)
{
	size_t i = 0, j = 0;

	for (i = 0; i < n; i++) {
		while (j < old->num_ents && key_cmp(&old->ents[j].k, &nw[i].k) < 0)
			j++;
		if (j < old->num_ents && !key_cmp(&old->ents[j].k, &nw[i].k) &&
		    !memcmp(&old->ents[j].v, &nw[i].v, sizeof(nw[i].v)))
			continue;
		if (s->ops->lpm_update(s->ctx, &nw[i].k, &nw[i].v))
			s->stats.lpm_failures++;
	}
	for (i = 0, j = 0; j < old->num_ents; j++) {
		while (i < n && key_cmp(&nw[i].k, &old->ents[j].k) < 0)
			i++;
		if (i < n && !key_cmp(&nw[i].k, &old->ents[j].k))
			continue;
		s->ops->lpm_delete(s->ctx, &old->ents[j].k);
	}
}

static void write_marker(struct trec_pid_sync *s, uint32_t pid)
{
	struct trec_pid_page_key k;
	struct trec_pid_page_value v = { 0, 0 };

	trec_lpm_key(&k, pid, 0, 64);
	if (s->ops->lpm_update(s->ctx, &k, &v))
		s->stats.lpm_failures++;
}

static bool sigs_equal(const struct pid_state *ps, const struct map_sig *sigs, size_t n)
{
	return ps->num_sigs == n && (!n || !memcmp(ps->sigs, sigs, n * sizeof(*sigs)));
}

/* ---- sync --------------------------------------------------------------- */

static void free_pid_state(struct pid_state *ps)
{
	if (!ps)
		return;
	free(ps->ents);
	free(ps->sigs);
	free(ps->snap);
	free(ps->paths);
	free(ps);
}

/* Keeps a copy of the snapshot just written; on -ENOMEM the old one stays
 * (a fork then copies a stale snapshot, which the child's own resync
 * corrects). */
static int keep_snapshot(struct pid_state *ps, const struct trec_mapping *v, size_t n)
{
	size_t len = 0, off = 0;
	struct trec_mapping *snap;
	char *paths;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i].path) + 1;
	snap = malloc((n ? n : 1) * sizeof(*snap));
	paths = malloc(len ? len : 1);
	if (!snap || !paths) {
		free(snap);
		free(paths);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i].path) + 1;

		snap[i] = v[i];
		snap[i].path = memcpy(paths + off, v[i].path, l);
		off += l;
	}
	free(ps->snap);
	free(ps->paths);
	ps->snap = snap;
	ps->paths = paths;
	ps->num_snap = n;
	return 0;
}

/* The pid's state, created empty if it has none; NULL on -ENOMEM. */
static struct pid_state *get_pid_state(struct trec_pid_sync *s, uint32_t pid)
{
	bool created;

	return get_or_new(&s->pids, pid, sizeof(struct pid_state), &created);
}

/* Replaces ps's entries and signatures (taking ownership of both). */
static void set_entries(struct trec_pid_sync *s, struct pid_state *ps, struct lpm_entry *ents,
			size_t num_ents, struct map_sig *sigs, size_t num_sigs)
{
	s->stats.lpm_entries += num_ents;
	s->stats.lpm_entries -= ps->num_ents;
	free(ps->ents);
	free(ps->sigs);
	ps->ents = ents;
	ps->num_ents = num_ents;
	ps->sigs = sigs;
	ps->num_sigs = num_sigs;
}

int trec_pid_sync_pid(struct trec_pid_sync *s, uint32_t pid)
{
	struct vec ents = { .elem = sizeof(struct lpm_entry) };
	struct vec snap = { .elem = sizeof(struct trec_mapping) };
	struct vec sigs = { .elem = sizeof(struct map_sig) };
	struct vec pending = { .elem = sizeof(struct opened) };
	struct trec_proc_maps maps;
	struct pid_state empty = { 0 }, *ps;
	bool changed;
	int err;

	uint64_t t0 = s->ops->now_ns(s->ctx);

	err = trec_proc_maps_read_pid(pid, &maps);
	if (!err && !maps.n) {
		/* A zombie (exited, not reaped yet): nothing to sync, and a
		 * report that arrives after its exit must not resurrect it. */
		trec_proc_maps_free(&maps);
		trec_pid_sync_remove(s, pid);
		err = -ESRCH;
	}
	if (err) {
		s->stats.sync_gone++;
		return err == -ENOENT || err == -ESRCH ? -ESRCH : err;
	}
	s->stats.syncs++;

	for (size_t i = 0; i < maps.n; i++) {
		const struct trec_proc_map *m = &maps.v[i];
		struct opened o = { .fd = -1 }, *p;
		uint64_t file_id = 0, bias = 0, vaddr;
		struct trec_mapping *tm;
		struct map_sig *sg;

		if (!(m->prot & PROT_EXEC))
			continue;
		if (resolve_file(s, pid, m, &o))
			vlog(s, "pid %u: cannot open %s", pid, m->path);
		if (o.f) {
			trec_file_vaddr_of_offset(o.f, m->offset, &vaddr);
			bias = m->start - vaddr;
			file_id = o.f->file_id;
			if (bias & ~TREC_BIAS_MASK) {
				/* Does not fit the LPM value; frames stay raw pcs. */
				vlog(s, "pid %u: %s: bias %#llx not representable", pid, m->path,
				     (unsigned long long)bias);
				file_id = bias = 0;
			} else {
				/* interpreter detection reads the file through o.path */
				if (s->ops->exec_mapping)
					s->ops->exec_mapping(s->ctx, pid, file_id, o.path, bias);
				if ((p = vec_push(&pending)) && !note_file(s, &o, p))
					pending.n--;
				publish_exec_file(s, m, o.f, vaddr);
			}
		}
		close_opened(&o);
		err = add_prefixes(&ents, pid, m, file_id, bias);
		tm = vec_push(&snap);
		sg = vec_push(&sigs);
		if (err || !tm || !sg) {
			err = -ENOMEM;
			goto out;
		}
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
	}

	if (ents.n)
		qsort(ents.v, ents.n, sizeof(struct lpm_entry), ent_cmp);
	ps = trec_u64map_get(&s->pids, pid);
	apply_entries(s, ps ? ps : &empty, ents.v, ents.n);
	write_marker(s, pid);

	changed = !ps || !sigs_equal(ps, sigs.v, sigs.n);
	if (changed) {
		struct trec_mapping_snapshot sn = {
			.time_ns = s->ops->now_ns(s->ctx),
			.pid = pid,
			.num_mappings = snap.n,
			.mappings = snap.v,
		};

		s->stats.sync_changed++;
		if (s->ops->write_mappings)
			s->ops->write_mappings(s->ctx, &sn);
		/* Still loading libraries: let the next unknown pc report at once. */
		if (s->ops->report_reset)
			s->ops->report_reset(s->ctx, pid);
	}

	if (!ps && !(ps = get_pid_state(s, pid))) {
		err = -ENOMEM;
		goto out;
	}
	if (changed)
		keep_snapshot(ps, snap.v, snap.n);
	ps->synced_ns = t0;
	set_entries(s, ps, ents.v, ents.n, sigs.v, sigs.n);
	ents.v = sigs.v = NULL;
	err = 0;
	for (size_t i = 0; i < pending.n; i++) {
		struct opened *o = (struct opened *)pending.v + i;
		/* The vdso's fd is ours to keep: hand over a copy. */
		int fd = o->fd >= 0 ? o->fd : dup(s->vdso_fd);

		o->fd = -1;
		if (fd >= 0)
			s->ops->load_deltas(s->ctx, o->f->file_id, fd, o->f->size, o->f->path);
	}
	vlog(s, "pid %u: synced %zu mappings, %zu LPM entries%s in %.1f ms", pid, snap.n,
	     ps->num_ents, changed ? "" : " (unchanged)", (s->ops->now_ns(s->ctx) - t0) / 1e6);
out:
	for (size_t i = 0; i < pending.n; i++)
		close_opened((struct opened *)pending.v + i);
	free(pending.v);
	free(ents.v);
	free(sigs.v);
	free(snap.v);
	trec_proc_maps_free(&maps);
	return err;
}

int trec_pid_sync_fork(struct trec_pid_sync *s, uint32_t child, uint32_t parent)
{
	const struct pid_state *pp = trec_u64map_get(&s->pids, parent);
	struct pid_state empty = { 0 }, *cs;
	struct lpm_entry *ents = NULL;
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
	apply_entries(s, cs ? cs : &empty, ents, pp->num_ents);
	write_marker(s, child);
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
	if (!cs && !(cs = get_pid_state(s, child)))
		goto nomem;
	/* pp is still valid: get_pid_state adds an entry, which may move
	 * the map's values but not what they point to. */
	keep_snapshot(cs, pp->snap, pp->num_snap);
	cs->synced_ns = s->ops->now_ns(s->ctx);
	set_entries(s, cs, ents, pp->num_ents, sigs, pp->num_sigs);
	s->stats.fork_copies++;
	vlog(s, "pid %u: %zu LPM entries copied from its parent %u", child, cs->num_ents, parent);
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
		    resolve_file(s, pid, m, &o) || !o.f || !o.f->is_elf ||
		    !(fs = file_state(s, o.f->file_id)) || fs->deltas_tried) {
			close_opened(&o);
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

void trec_pid_sync_remove(struct trec_pid_sync *s, uint32_t pid)
{
	struct pid_state *ps = trec_u64map_del(&s->pids, pid);
	struct trec_pid_page_key k;

	if (!ps)
		return;
	trec_lpm_key(&k, pid, 0, 64);
	s->ops->lpm_delete(s->ctx, &k);
	for (size_t i = 0; i < ps->num_ents; i++)
		s->ops->lpm_delete(s->ctx, &ps->ents[i].k);
	s->stats.lpm_entries -= ps->num_ents;
	free_pid_state(ps);
}

void trec_pid_sync_exited(struct trec_pid_sync *s, uint32_t pid)
{
	if (!trec_u64map_get(&s->pids, pid))
		return;
	if (trec_exit_fifo_push(&s->exited, pid, s->ops->now_ns(s->ctx)))
		trec_pid_sync_remove(s, pid);
}

void trec_pid_sync_reap(struct trec_pid_sync *s, bool all)
{
	uint64_t now = s->ops->now_ns(s->ctx);
	uint64_t before = all ? UINT64_MAX : now - TREC_EXIT_GRACE_NS;
	struct trec_exit_ent e;

	if (!all && now < TREC_EXIT_GRACE_NS)
		return;
	while (trec_exit_fifo_pop_due(&s->exited, before, &e)) {
		const struct pid_state *ps = trec_u64map_get(&s->pids, e.pid);

		/* Synced after its exit: the pid is a new process (or the old
		 * one still tearing down, which the sweep will find gone). */
		if (ps && (all || ps->synced_ns <= e.time_ns))
			trec_pid_sync_remove(s, e.pid);
	}
}

void trec_pid_sync_sweep(struct trec_pid_sync *s)
{
	uint32_t dead[256];
	size_t n = 0;
	uint64_t pid;
	void *v;

	for (size_t i = 0; n < 256 && trec_u64map_next(&s->pids, &i, &pid, &v);)
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			dead[n++] = pid;
	for (size_t i = 0; i < n; i++)
		trec_pid_sync_remove(s, dead[i]);
}

bool trec_pid_sync_known(const struct trec_pid_sync *s, uint32_t pid)
{
	return trec_u64map_get(&s->pids, pid) != NULL;
}

void trec_pid_sync_get_stats(const struct trec_pid_sync *s, struct trec_pid_sync_stats *st)
{
	*st = s->stats;
	st->pids = s->pids.n;
}

void trec_pid_sync_free(struct trec_pid_sync *s)
{
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; trec_u64map_next(&s->pids, &i, &k, &v);)
		free_pid_state(v);
	trec_u64map_free(&s->pids);
	for (size_t i = 0; trec_u64map_next(&s->fstates, &i, &k, &v);)
		free(v);
	trec_u64map_free(&s->fstates);
	trec_exit_fifo_free(&s->exited);
	trec_file_cache_free(s->files);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s);
}
