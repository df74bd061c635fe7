// SPDX-License-Identifier: MIT
/*
 * record/procs/open_regular.c: files a profiled process names are opened
 * only if regular (a FIFO must not block, a device must not be opened),
 * and an ELF header asking for millions of sections is refused before
 * libelf allocates for them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/procs/open_regular.h"
#include "unit_check.h"

static void on_alarm(int sig)
{
	(void)sig;
	printf("FAIL: open_regular: blocked (alarm)\n");
	_exit(1);
}

/* A 64-bit ELF header with e_shnum 0 and section header 0 at shoff
 * holding count in sh_size (the extended form). */
static int write_elf(const char *path, uint64_t count, uint16_t shnum)
{
	Elf64_Ehdr h = { 0 };
	Elf64_Shdr s0 = { 0 };
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_DYN;
	h.e_shoff = sizeof(h);
	h.e_shnum = shnum;
	h.e_shentsize = sizeof(s0);
	s0.sh_size = count;
	if (fd < 0 || write(fd, &h, sizeof(h)) != sizeof(h) || write(fd, &s0, sizeof(s0)) != sizeof(s0))
		return -1;
	return close(fd);
}

int main(void)
{
	char dir[] = "/tmp/trec-open-regular.XXXXXX", p[256];
	int fd;

	signal(SIGALRM, on_alarm);
	alarm(10);
	if (!mkdtemp(dir))
		return 1;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	mkfifo(p, 0600);
	CHECK("a FIFO is refused at once, not opened (no writer: open would block)",
	      trec_open_regular(p) == -EINVAL);
	snprintf(p, sizeof(p), "%s/link", dir);
	char fifo[256];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	symlink(fifo, p);
	CHECK("a symlink to a FIFO likewise", trec_open_regular(p) == -EINVAL);
	CHECK("a character device is refused", trec_open_regular("/dev/null") == -EINVAL);
	CHECK("a directory is refused", trec_open_regular(dir) == -EINVAL);
	CHECK("a missing file gives ENOENT", trec_open_regular("/nonexistent/x") == -ENOENT);

	snprintf(p, sizeof(p), "%s/big.elf", dir);
	write_elf(p, 1u << 24, 0);
	fd = trec_open_regular(p);
	CHECK("a regular file opens", fd >= 0);
	CHECK("an ELF header declaring 2^24 sections (extended count) is refused",
	      fd >= 0 && trec_elf_headers_bounded(fd) == -E2BIG);
	if (fd >= 0)
		close(fd);
	write_elf(p, 0, 40);
	fd = trec_open_regular(p);
	CHECK("40 sections pass", fd >= 0 && trec_elf_headers_bounded(fd) == 0);
	if (fd >= 0)
		close(fd);
	fd = trec_open_regular("/proc/self/exe");
	CHECK("this test's own binary passes (through a /proc magic link)",
	      fd >= 0 && trec_elf_headers_bounded(fd) == 0);
	if (fd >= 0)
		close(fd);

	snprintf(p, sizeof(p), "rm -rf %s", dir);
	if (system(p))
		return 1;
	return failures ? 1 : 0;
}
