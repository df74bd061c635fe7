/* SPDX-License-Identifier: MIT */
/*
 * One recording, start to end: loads the BPF programs, opens the output,
 * starts the command, runs the three worker threads and finishes the file.
 *
 *   ring thread   drains the BPF ring buffer into the queue (consumer.c)
 *   writer thread turns queued traces and pid events into records
 *                 (consumer.c); forwards exec/exit to the sync thread
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
