// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record/inherit.h"
#include "record/workload.h"

/* The command, held until trecord has attached its programs. It must
 * never run unrecorded nor wait forever: it holds no write end of the go
 * pipe (so trecord's death reads as EOF) and dies with trecord meanwhile
 * (PR_SET_PDEATHSIG, checked against a death before it was set). */
static void child(int go_rd, int go_wr, int err_rd, int err_wr, pid_t parent,
		  char *const argv[], const sigset_t *mask)
{
	char c;
	int e;

	close(go_wr);
	close(err_rd);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	trec_inherit_restore();
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* Samples inside execve still carry the old comm: make it the
	 * command's name rather than trecord's (perf says "perf-exec"). */
	const char *base = strrchr(argv[0], '/');

	prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
	if (read(go_rd, &c, 1) != 1)
		_exit(127); /* trecord gave up, or died, before starting us */
	/* Started: from here the command is the user's, and like perf's it
	 * outlives a trecord that is killed. */
	prctl(PR_SET_PDEATHSIG, 0);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int trec_workload_fork(struct trec_workload *w, char *const argv[], const sigset_t *child_mask)
{
	int go[2], er[2];

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	pid_t parent = getpid();

	w->pid = fork();
	if (w->pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return e;
	}
	if (w->pid == 0)
		child(go[0], go[1], er[0], er[1], parent, argv, child_mask);
	close(go[0]);
	close(er[1]);
	w->go_fd = go[1];
	w->err_fd = er[0];
	return 0;
}

int trec_workload_start(struct trec_workload *w)
{
	int e = 0;
	ssize_t r;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	/* EOF: the exec succeeded and closed the CLOEXEC write end. */
	do
		r = read(w->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return r == sizeof(e) ? -e : 0;
}

void trec_workload_close(struct trec_workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
}

int trec_workload_exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}
