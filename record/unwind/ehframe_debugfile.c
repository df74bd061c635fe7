// SPDX-License-Identifier: MIT
/*
 * The separate debug file of a binary, for its .debug_frame: a binary built
 * without unwind tables and split with objcopy --only-keep-debug keeps its
 * CFI only there. Found the way gdb and libdwfl look (no network here:
 * this runs while recording):
 *  1. /usr/lib/debug/.build-id/xx/yyyy.debug, by the GNU build-id;
 *  2. the .gnu_debuglink name in the binary's directory, in its .debug/,
 *     and under /usr/lib/debug followed by the directory.
 * A candidate must carry the binary's build-id (or, when the binary has
 * none, match the debuglink's CRC-32), and must not be the binary itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <elfutils/libdwelf.h>

#include "record/procs/open_regular.h"
#include "record/unwind/ehframe.h"

#define DEBUG_ROOT "/usr/lib/debug"

static bool crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;
	off_t off = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	return n == 0 && (uint32_t)crc == want;
}

/* fd of path if it is the debug file of the binary (bid, or crc without
 * one) and not the binary (self) itself; else -1. */
static int candidate(const char *path, const void *bid, ssize_t bidlen, uint32_t crc,
		     const struct stat *self, Elf **out)
{
	struct stat st;
	/* (the name comes from the binary's debug link: regular files only) */
	int fd = trec_open_regular(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_dev == self->st_dev && st.st_ino == self->st_ino) ||
	    trec_elf_headers_bounded(fd))
		goto no;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	bool ok = elf && elf_kind(elf) == ELF_K_ELF &&
		  (bidlen > 0 ? n == bidlen && !memcmp(id, bid, (size_t)bidlen)
			      : crc_matches(fd, crc));
	if (ok) {
		*out = elf;
		return fd;
	}
	if (elf)
		elf_end(elf);
no:
	close(fd);
	return -1;
}

int trec_debugfile_open(Elf *elf, const char *path, Elf **out)
{
	char dir[PATH_MAX], p[PATH_MAX + 300];
	const void *bid = NULL;
	GElf_Word crc = 0;
	struct stat self;
	ssize_t bidlen = dwelf_elf_gnu_build_id(elf, &bid);
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	int fd;

	*out = NULL;
	if (stat(path, &self))
		return -1;
	if (bidlen >= 2 && bidlen <= 64) {
		int o = snprintf(p, sizeof(p), DEBUG_ROOT "/.build-id/%02x/",
				 ((const uint8_t *)bid)[0]);
		for (ssize_t i = 1; i < bidlen; i++)
			o += snprintf(p + o, sizeof(p) - (size_t)o, "%02x", ((const uint8_t *)bid)[i]);
		snprintf(p + o, sizeof(p) - (size_t)o, ".debug");
		if ((fd = candidate(p, bid, bidlen, 0, &self, out)) >= 0)
			return fd;
	}
	/* The binary's directory (path may be /proc/self/fd/N); a deleted
	 * file has none. */
	if (!link || !*link || strchr(link, '/') || !realpath(path, dir))
		return -1;
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = 0;
	static const char *const forms[] = { "%s/%s", "%s/.debug/%s", DEBUG_ROOT "%s/%s" };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		int len = snprintf(p, sizeof(p), forms[i], dir, link);
		if (len > 0 && (size_t)len < sizeof(p) &&
		    (fd = candidate(p, bid, bidlen, crc, &self, out)) >= 0)
			return fd;
	}
	return -1;
}
