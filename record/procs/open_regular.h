/* SPDX-License-Identifier: MIT */
/*
 * Opening files a profiled process names (its mappings, the paths in its
 * /proc/PID/maps, debug links in its binaries): the process chooses what
 * sits there, so a path may be a FIFO (open would block), a device (open
 * alone can act, e.g. a watchdog) or an ELF file crafted to make libelf
 * allocate per section.
 */
#ifndef TREC_OPEN_REGULAR_H
#define TREC_OPEN_REGULAR_H

#include <stddef.h>

/* Sections or program headers an ELF file may declare: linked binaries
 * have tens; libelf allocates about 200 bytes for each before anything
 * looks at them. */
#define TREC_ELF_MAX_HEADERS 65536

/* fd (O_RDONLY | O_CLOEXEC) of path if it is a regular file, following
 * symlinks; the file is looked at through an O_PATH fd first, which opens
 * nothing. -errno, or -EINVAL for a file that is not regular. */
int trec_open_regular(const char *path);
/* 0 if fd's ELF header (if it is ELF at all) declares at most
 * TREC_ELF_MAX_HEADERS sections and program headers; else -E2BIG. Call
 * before elf_begin on a file a process chose. */
int trec_elf_headers_bounded(int fd);
/* The fds trecord has open now (0 if /proc/self/fd cannot be read): what
 * its budgets under RLIMIT_NOFILE start from. */
size_t trec_fds_open(void);

#endif /* TREC_OPEN_REGULAR_H */
