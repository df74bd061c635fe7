/* SPDX-License-Identifier: MIT */
/*
 * Draining the pids BPF asked to have synced (pid_events; the wake-up on
 * report_events is latched in inhibit_events until the drain re-arms it).
 */
#ifndef TREC_PID_REPORTS_H
#define TREC_PID_REPORTS_H

#include <stddef.h>
#include <stdint.h>

/* Calls sync(ctx, pid) once per pid reported since the last drain. Costs
 * one map lookup when nothing was reported (the latch is not set), else
 * one batch lookup-and-delete per 1024 reports. Returns the pids synced. */
size_t trec_pid_reports_drain(int pid_events_fd, int inhibit_fd,
			      void (*sync)(void *ctx, uint32_t pid), void *ctx);

#endif
