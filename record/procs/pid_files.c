// SPDX-License-Identifier: MIT
/* The files a pid's mappings resolve to: opened through /proc, FILE
 * records (and the vdso's image), exec_files entries for BPF. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "record/procs/open_regular.h"
#include "record/procs/pid_sync_internal.h"

int open_mapping(uint32_t pid, const struct trec_proc_map *m, char *path, size_t pathlen)
{
	int fd;

	/* map_files reaches the mapped inode even if it was deleted or lives
	 * in another mount namespace; root/ is the fallback. */
	snprintf(path, pathlen, "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	/* (the process may have mapped a device, or put a FIFO at the path:
	 * regular files only) */
	fd = trec_open_regular(path);
	if (fd >= 0 || fd == -EINVAL)
		return fd;
	snprintf(path, pathlen, "/proc/%u/root%s", pid, m->path);
	return trec_open_regular(path);
}

/* Strips the " (deleted)" /proc/PID/maps appends to unlinked files. */
void record_path(const char *in, char *out, size_t outlen)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(in);

	if (n >= sizeof(del) - 1 && !strcmp(in + n - (sizeof(del) - 1), del))
		n -= sizeof(del) - 1;
	snprintf(out, outlen, "%.*s", (int)n, in);
}

int pid_sync_resolve_file(struct trec_pid_sync *s, uint32_t pid, const struct trec_proc_map *m,
			struct opened *o)
{
	char rpath[4096], opath[128];
	struct stat st;
	int err;

	o->f = NULL;
	o->fd = -1;
	if (!strcmp(m->path, "[vdso]")) {
		o->f = pid_sync_vdso_file(s, o->path, sizeof(o->path));
		return 0;
	}
	if (!m->inode || !m->path[0] || m->path[0] == '[')
		return 0; /* anonymous: JIT code, or [vsyscall] */
	o->fd = open_mapping(pid, m, opath, sizeof(opath));
	if (o->fd < 0)
		return o->fd;
	snprintf(o->path, sizeof(o->path), "/proc/self/fd/%d", o->fd);
	record_path(m->path, rpath, sizeof(rpath));
	err = fstat(o->fd, &st) ? -errno : trec_file_cache_get(s->files, o->fd, &st, rpath, &o->f);
	return err;
}

void pid_sync_close_opened(struct opened *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/* m's value for key, a zeroed one of size bytes if it has none (*created
 * set); NULL on -ENOMEM. */
void *pid_sync_get_or_new(struct trec_u64map *m, uint64_t key, size_t size, bool *created)
{
	void *v = trec_u64map_get(m, key);

	*created = false;
	if (v)
		return v;
	v = trec_u64map_put_new(m, key, calloc(1, size));
	*created = v != NULL;
	return v;
}

struct file_state *pid_sync_file_state(struct trec_pid_sync *s, uint64_t file_id)
{
	bool created;
	struct file_state *fs = pid_sync_get_or_new(&s->fstates, file_id, sizeof(*fs), &created);

	s->stats.files += created;
	if (created)
		fs->kept_fd = -1;
	return fs;
}

/* Whether trecord's own view of f's path is f: not for a file mapped in
 * another mount namespace, deleted, or replaced since (a container's libc
 * under the host's libc's path). */
static bool path_reaches(const struct trec_file *f)
{
	struct stat st;

	return !stat(f->path, &st) && st.st_ino == f->inode && major(st.st_dev) == f->dev_major &&
	       minor(st.st_dev) == f->dev_minor;
}

static bool fd_room(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return false;
	return r.rlim_cur == RLIM_INFINITY || trec_fds_open() + TREC_FDS_SPARE < r.rlim_cur;
}

/* An ELF file its path does not reach keeps a copy of fd (which reads it)
 * for its symbols at the end; past the bounds it goes by its path, as
 * before. memfds are left out: the archive skips them. */
static void keep_if_unreachable(struct trec_pid_sync *s, struct file_state *fs, int fd)
{
	const struct trec_file *f = fs->f;

	if (fd < 0 || f == s->vdso || !f->is_elf || !strncmp(f->path, "/memfd:", 7) ||
	    path_reaches(f))
		return;
	if (s->kept_fds < TREC_KEPT_FDS_MAX && fd_room())
		fs->kept_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fs->kept_fd < 0) {
		s->stats.files_not_kept++;
		pid_sync_vlog(s, "%s: not reached by its path, not kept open either (%u are, "
			      "or the fd limit is near)", f->path, s->kept_fds);
		return;
	}
	s->kept_fds++;
	s->stats.files_kept++;
	pid_sync_vlog(s, "%s: not reached by its path: kept open for its symbols", f->path);
}

void pid_sync_close_kept(struct trec_pid_sync *s, struct file_state *fs)
{
	if (fs->kept_fd < 0)
		return;
	close(fs->kept_fd);
	fs->kept_fd = -1;
	s->kept_fds--;
}

void write_file_record(struct trec_pid_sync *s, const struct trec_file *f)
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
bool pid_sync_note_file(struct trec_pid_sync *s, struct opened *o, struct opened *pending)
{
	struct file_state *fs = pid_sync_file_state(s, o->f->file_id);

	if (!fs)
		return false;
	if (!fs->written) {
		write_file_record(s, o->f);
		fs->written = true;
		fs->f = o->f;
		keep_if_unreachable(s, fs, o->fd);
	}
	if (fs->deltas_tried || !s->ops->load_deltas || !o->f->is_elf)
		return false;
	fs->deltas_tried = true;
	if (s->ops->expect_deltas)
		s->ops->expect_deltas(s->ctx, o->f->file_id);
	*pending = *o;
	o->fd = -1;
	return true;
}

/* Lets the BPF side resolve pcs of the mapping through its VMA before
 * a sync of its process has put it in the trie (a new image, a library
 * ld.so just mapped). Once per file and offset (nearly always one). */
void pid_sync_publish_exec_file(struct trec_pid_sync *s, const struct trec_proc_map *m,
			      const struct trec_file *f, uint64_t vaddr)
{
	struct file_state *fs = trec_u64map_get(&s->fstates, f->file_id);
	struct trec_exec_file_key k = { 0 };
	struct trec_exec_file_value v = {
		.file_id = f->file_id,
		.vaddr_minus_offset = (int64_t)(vaddr - m->offset),
		.unwinder = trec_pid_sync_unwinder(m->path, f),
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
	else if (fs->kept_fd >= 0)
		snprintf(path, pathlen, "/proc/self/fd/%d", fs->kept_fd);
	else
		snprintf(path, pathlen, "%s", fs->f->path);
	return fs->f;
}
