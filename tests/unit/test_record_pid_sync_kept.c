// SPDX-License-Identifier: MIT
/*
 * Files whose recorded path does not reach them from trecord (deleted,
 * replaced by another file, another mount namespace): pid sync keeps an
 * fd of each, bounded, and names it to the archive as /proc/self/fd/N;
 * a file its path reaches keeps going by its path, with no fd.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/archive/archive.h"
#include "record/procs/file_id.h"
#include "record/procs/open_regular.h"
#include "record/procs/pid_sync.h"
#include "unit_check.h"

#define SIZE 8192

static int f_update(void *ctx, const struct trec_pid_page_key *k, const struct trec_pid_page_value *v)
{
	return 0;
}
static int f_delete(void *ctx, const struct trec_pid_page_key *k) { return 0; }
static uint64_t f_now(void *ctx) { return 1; }

static const struct trec_pid_sync_ops ops = {
	.lpm_update = f_update, .lpm_delete = f_delete, .now_ns = f_now,
};

/* A file mapped executable; fd stays open to tell its inode and id. */
struct mapped {
	char path[256];
	int fd;
	uint64_t file_id;
	void *p;
};

/* An ELF header and a tag (so each file has an id of its own), mapped
 * PROT_EXEC as a loader would; 0 or -1. */
static int map_elf(struct mapped *m, const char *dir, const char *name, int tag)
{
	Elf64_Ehdr h = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};
	char buf[SIZE] = { 0 };
	struct trec_file f;

	memcpy(buf, &h, sizeof(h));
	snprintf(buf + sizeof(h), 64, "tag %d of %d", tag, (int)getpid());
	snprintf(m->path, sizeof(m->path), "%s/%s", dir, name);
	m->fd = open(m->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (m->fd < 0 || write(m->fd, buf, SIZE) != SIZE || trec_file_describe(m->fd, m->path, &f))
		return -1;
	m->file_id = f.file_id;
	trec_file_release(&f);
	m->p = mmap(NULL, SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE, m->fd, 0);
	return m->p == MAP_FAILED ? -1 : 0;
}

/* Whether path (as trec_pid_sync_file gave it) reads m's inode. */
static bool reaches(const char *path, const struct mapped *m)
{
	struct stat a, b;

	return !stat(path, &a) && !fstat(m->fd, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The archive's build-id check holds through /proc/self/fd/N: a file
 * changed since it was described is refused (-ESTALE). */
static void build_id_check(void)
{
	int fd = trec_open_regular("/proc/self/exe");
	uint8_t wrong[TREC_MAX_BUILD_ID] = { 1, 2, 3 }, *out = NULL;
	struct trec_file f = { 0 };
	char path[64];
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK("kept: our own binary has a build-id",
	      fd >= 0 && !trec_file_describe(fd, path, &f) && f.build_id_len);
	CHECK("kept: an archive through /proc/self/fd/N refuses another build-id",
	      trec_archive_build(path, wrong, f.build_id_len, TREC_ARCHIVE_SYMBOLS, &out, &n,
				 NULL) == -ESTALE);
	CHECK("kept: ... and is built for its own",
	      !trec_archive_build(path, f.build_id, f.build_id_len, TREC_ARCHIVE_SYMBOLS, &out,
				  &n, NULL) && n);
	free(out);
	trec_file_release(&f);
	close(fd);
}

/* One file of each kind, synced: which path each is read through. */
static void kinds(const char *dir)
{
	struct trec_pid_sync *s = trec_pid_sync_new(&ops, NULL, false);
	struct mapped del, replaced, kept;
	struct trec_archive_file af = { 0 };
	struct trec_pid_sync_stats st;
	const struct trec_file *f;
	char other[300], buf[4096];
	int ok = s && !map_elf(&del, dir, "del", 0) && !unlink(del.path) &&
		 !map_elf(&replaced, dir, "lib.so", 1) && !map_elf(&kept, dir, "here.so", 2);

	/* another file renamed over lib.so: its path now gives that one */
	snprintf(other, sizeof(other), "%s/new.so", dir);
	ok = ok && !link(kept.path, other) && !rename(other, replaced.path);
	CHECK("kept: files mapped", ok);
	if (!ok)
		exit(1);
	CHECK("kept: sync", trec_pid_sync_pid(s, getpid()) == 0);
	trec_pid_sync_get_stats(s, &st);
	CHECK("kept: the deleted and the replaced file kept open", st.files_kept == 2 &&
	      !st.files_not_kept);
	f = trec_pid_sync_file(s, del.file_id, buf, sizeof(buf));
	CHECK("kept: a deleted file is read through its kept fd",
	      f && !strncmp(buf, "/proc/self/fd/", 14) && reaches(buf, &del));
	CHECK("kept: ... and keeps its recorded name", f && !strcmp(f->path, del.path));
	f = trec_pid_sync_file(s, replaced.file_id, buf, sizeof(buf));
	CHECK("kept: a replaced file is read through its kept fd, not its path",
	      f && !strncmp(buf, "/proc/self/fd/", 14) && reaches(buf, &replaced) &&
	      !reaches(replaced.path, &replaced) && !strcmp(f->path, replaced.path));
	f = trec_pid_sync_file(s, kept.file_id, buf, sizeof(buf));
	CHECK("kept: a file its path reaches goes by its path",
	      f && !strcmp(buf, kept.path) && reaches(buf, &kept));
	/* The archive opens the fd, and names the file by its path. */
	CHECK("kept: the archive's lookup",
	      !trec_archive_lookup_synced(s, del.file_id, &af, buf, sizeof(buf)));
	CHECK("kept: ... opens /proc/self/fd/N and shows the recorded path",
	      !strncmp(af.path, "/proc/self/fd/", 14) && !strcmp(af.name, del.path));
	trec_pid_sync_free(s);
	/* (left mapped: the next sync sees them too) */
	close(del.fd);
	close(replaced.fd);
	close(kept.fd);
}

int main(void)
{
	enum { N = TREC_KEPT_FDS_MAX + 3 };
	static struct mapped del[N];
	const char *tmp = getenv("TMPDIR");
	char tmpl[512], name[32], buf[4096];
	const char *dir;
	size_t fds_before = trec_fds_open();
	struct trec_pid_sync_stats st;
	struct trec_pid_sync *s;
	int ok, by_fd = 0, by_path = 0;

	snprintf(tmpl, sizeof(tmpl), "%s/trec-kept.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ok = (dir = mkdtemp(tmpl)) != NULL;
	if (!ok)
		return 1;
	build_id_check();
	kinds(dir);
	CHECK("kept: their fds closed when pid sync is freed", trec_fds_open() == fds_before);

	/* More deleted files than may be kept (and the two above). */
	for (int i = 0; ok && i < N; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		ok = !map_elf(&del[i], dir, name, 10 + i) && !unlink(del[i].path) && !close(del[i].fd);
	}
	CHECK("kept: many deleted files mapped", ok);
	s = trec_pid_sync_new(&ops, NULL, false);
	CHECK("kept: sync of many", s && trec_pid_sync_pid(s, getpid()) == 0);
	trec_pid_sync_get_stats(s, &st);
	CHECK("kept: the cap's worth kept open, the rest counted",
	      st.files_kept == TREC_KEPT_FDS_MAX && st.files_not_kept == N + 2 - TREC_KEPT_FDS_MAX);
	for (int i = 0; i < N; i++) {
		const struct trec_file *f = trec_pid_sync_file(s, del[i].file_id, buf, sizeof(buf));

		by_fd += f && !strncmp(buf, "/proc/self/fd/", 14);
		by_path += f && !strcmp(buf, del[i].path);
	}
	CHECK("kept: past the cap, files go by their path as before",
	      by_path >= N - TREC_KEPT_FDS_MAX && by_fd + by_path == N);
	trec_pid_sync_free(s);
	CHECK("kept: every fd closed at the end", trec_fds_open() == fds_before);
	for (int i = 0; i < N; i++)
		munmap(del[i].p, SIZE);
	snprintf(buf, sizeof(buf), "%s/lib.so", dir);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/here.so", dir);
	unlink(buf);
	rmdir(dir);
	return failures != 0;
}
