/* SPDX-License-Identifier: MIT */
/*
 * What /proc/PID/status says of a pid: whether it still runs, and the
 * process it belongs to. kill(pid, 0) cannot tell: it succeeds for a
 * zombie (exited, not yet reaped by its parent) and for a thread id.
 */
#ifndef TREC_PROC_STATUS_H
#define TREC_PROC_STATUS_H

#include <stdint.h>

enum trec_proc_state {
	TREC_PROC_GONE,   /* no such pid, or it is being torn down */
	TREC_PROC_ZOMBIE, /* exited, waiting for its parent's wait() */
	TREC_PROC_LIVE,
};

/* The state of pid (a process or thread id), and in *tgid (if not NULL)
 * the process it belongs to (pid itself for a process). */
enum trec_proc_state trec_proc_status(uint32_t pid, uint32_t *tgid);

#endif /* TREC_PROC_STATUS_H */
