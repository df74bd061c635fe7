// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/procs/pid_sync_internal.h"

/* The vdso is not a file: every 64-bit process on this kernel maps the
 * same image as we do, so ours is copied into a memfd and treated as one. */
struct trec_file *pid_sync_vdso_file(struct trec_pid_sync *s, char *path, size_t pathlen)
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
