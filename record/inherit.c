// SPDX-License-Identifier: MIT
/* The fds and ignored signals trecord hands on to its command (inherit.h). */
#include "record/inherit.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A command inherits a few (make's jobserver: 2); past this many the rest
 * are closed for it, as all were before. */
#define MAX_KEPT 256

static struct kept {
	int fd;
	dev_t dev;
	ino_t ino;
} kept[MAX_KEPT];
static int nkept;
static sigset_t ignored;

void trec_inherit_note(void)
{
	struct sigaction sa;
	struct dirent *e;
	struct stat st;
	DIR *d;

	sigemptyset(&ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (!sigaction(sig, NULL, &sa) && sa.sa_handler == SIG_IGN)
			sigaddset(&ignored, sig);
	if (!(d = opendir("/proc/self/fd")))
		return;
	while ((e = readdir(d)) && nkept < MAX_KEPT) {
		int fd = atoi(e->d_name), fl;

		/* open at exec: not the listing's own fd, nor a close-on-exec one */
		if (fd < 3 || fd == dirfd(d) || (fl = fcntl(fd, F_GETFD)) < 0 || (fl & FD_CLOEXEC) ||
		    fstat(fd, &st))
			continue;
		kept[nkept++] = (struct kept){ fd, st.st_dev, st.st_ino };
	}
	closedir(d);
}

bool trec_inherit_ignored(int sig)
{
	return sigismember(&ignored, sig) == 1;
}

void trec_inherit_restore(void)
{
	struct stat st;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, sigismember(&ignored, sig) == 1 ? SIG_IGN : SIG_DFL);
	/* Nothing of trecord's (BPF fds, the output) leaks into the command. */
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	/* An inherited number trecord closed and reused is trecord's now. */
	for (int i = 0; i < nkept; i++)
		if (!fstat(kept[i].fd, &st) && st.st_dev == kept[i].dev && st.st_ino == kept[i].ino)
			fcntl(kept[i].fd, F_SETFD, 0);
}
