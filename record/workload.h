/* SPDX-License-Identifier: MIT */
/*
 * The recorded command (trecord -- cmd): forked early, held on a pipe until
 * the BPF programs are attached and its pid is followed, then exec'd, so
 * its first instruction is already recorded. Held, it never runs
 * unrecorded nor waits forever: if trecord dies (any signal, SIGKILL
 * too), it is killed with it (PR_SET_PDEATHSIG) or reads EOF and exits.
 */
#ifndef TREC_WORKLOAD_H
#define TREC_WORKLOAD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct trec_workload {
	pid_t pid;
	int go_fd;   /* write end: one byte starts the command */
	int err_fd;  /* read end: errno of a failed exec, or EOF */
};

/* Forks; the child restores child_mask and waits. 0 or negative errno. */
int trec_workload_fork(struct trec_workload *w, char *const argv[], const sigset_t *child_mask);
/* Lets the child exec. 0, or the (negative) errno of a failed exec. */
int trec_workload_start(struct trec_workload *w);
/* Closes the pipes; a child still waiting then exits with 127. */
void trec_workload_close(struct trec_workload *w);

/* Shell-style status: exit code, or 128 + signal. */
int trec_workload_exit_code(int wait_status);

#endif /* TREC_WORKLOAD_H */
