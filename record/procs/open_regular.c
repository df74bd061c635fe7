// SPDX-License-Identifier: MIT
/* See open_regular.h. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/procs/open_regular.h"

int trec_open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		err = -errno;
		close(pfd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		return -EINVAL;
	}
	/* The same inode, now opened for reading (no FIFO or device can be
	 * behind it any more). */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	err = fd < 0 ? -errno : 0;
	close(pfd);
	return fd < 0 ? err : fd;
}

/* Reads the counts from an Ehdr/Shdr pair of one class, including the
 * extended forms (e_shnum 0, e_phnum PN_XNUM: the real counts in section
 * header 0). 0, or -1 for a short file (left to libelf). */
#define ELF_COUNTS(Ehdr, Shdr)                                                           \
	static int counts_##Ehdr(int fd, uint64_t *shnum, uint64_t *phnum)               \
	{                                                                                \
		Ehdr h;                                                                  \
		Shdr s0;                                                                 \
		if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))                  \
			return -1;                                                       \
		*shnum = h.e_shnum;                                                      \
		*phnum = h.e_phnum;                                                      \
		if (!h.e_shoff || (*shnum && *phnum != PN_XNUM))                         \
			return 0;                                                        \
		if (pread(fd, &s0, sizeof(s0), (off_t)h.e_shoff) != (ssize_t)sizeof(s0)) \
			return -1;                                                       \
		if (!*shnum)                                                             \
			*shnum = s0.sh_size;                                             \
		if (*phnum == PN_XNUM)                                                   \
			*phnum = s0.sh_info;                                             \
		return 0;                                                                \
	}
ELF_COUNTS(Elf64_Ehdr, Elf64_Shdr)
ELF_COUNTS(Elf32_Ehdr, Elf32_Shdr)

int trec_elf_headers_bounded(int fd)
{
	unsigned char id[EI_NIDENT];
	uint64_t shnum, phnum;
	int rc;

	if (pread(fd, id, sizeof(id), 0) != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return 0; /* not ELF: libelf will say so */
	if (id[EI_CLASS] == ELFCLASS64)
		rc = counts_Elf64_Ehdr(fd, &shnum, &phnum);
	else if (id[EI_CLASS] == ELFCLASS32)
		rc = counts_Elf32_Ehdr(fd, &shnum, &phnum);
	else
		return 0;
	/* (host byte order: trecord reads binaries of its own machine; a
	 * foreign-endian file gives big counts and is refused, which is fine) */
	return !rc && (shnum > TREC_ELF_MAX_HEADERS || phnum > TREC_ELF_MAX_HEADERS) ? -E2BIG : 0;
}

size_t trec_fds_open(void)
{
	DIR *dir = opendir("/proc/self/fd");
	size_t n = 0;

	if (!dir)
		return 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}
