// SPDX-License-Identifier: MIT
/* A pid's state and thread group, from /proc/PID/status (proc_status.h). */
#include "record/procs/proc_status.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum trec_proc_state trec_proc_status(uint32_t pid, uint32_t *tgid)
{
	char path[64], buf[4096], *p;
	unsigned id;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TREC_PROC_GONE;
	/* Name: (up to 64 bytes, escaped), State:, Tgid:, ..., Threads: (a few
	 * hundred bytes in) */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return TREC_PROC_GONE;
	buf[n] = 0;
	if (tgid) {
		if (!(p = strstr(buf, "\nTgid:")) || sscanf(p + 6, "%u", &id) != 1)
			return TREC_PROC_GONE;
		*tgid = id;
	}
	if (!(p = strstr(buf, "\nState:")))
		return TREC_PROC_GONE;
	p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == 'X')
		return TREC_PROC_GONE;
	if (*p != 'Z')
		return TREC_PROC_LIVE;
	/* A leader that called pthread_exit is a zombie too, while its other
	 * threads run: Threads: counts them (and it) until they end. */
	if ((p = strstr(p, "\nThreads:")) && sscanf(p + 9, "%u", &id) == 1 && id > 1)
		return TREC_PROC_LIVE;
	return TREC_PROC_ZOMBIE;
}
