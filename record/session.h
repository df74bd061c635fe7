/* SPDX-License-Identifier: MIT */
/*
 * One recording, start to end: loads the BPF programs, opens the output,
 * starts the command, runs its worker threads and finishes the file.
 *
 *   writer thread reads the BPF ring buffer: traces and pid events
 *                 become records (consumer.c); forwards pid events to
 *                 the sync thread
 *   sync thread   syncs processes: reported pids, execs, exits (syncer.c)
 *   main thread   signals, the command, periodic flush and metrics
 */
#ifndef TREC_SESSION_H
#define TREC_SESSION_H

struct trec_options;

/* Runs a whole recording; returns trecord's exit code, or sets *die_sig to
 * the signal trecord must die by (trec_die_by_signal). */
int trec_record(const struct trec_options *opt, int *die_sig);

#endif /* TREC_SESSION_H */
