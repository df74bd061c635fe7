/* SPDX-License-Identifier: MIT */
/*
 * JIT symbol capture: which pids' perf maps and jitdump files trecord
 * reads, when, and what of them it embeds (JITSYMS records, FORMAT.md
 * §6.12).
 *
 *   samples (writer thread)  each native frame with a runtime pc (file id
 *                            0: anonymous memory) adds the pc to its pid
 *   mappings (sync thread)   a pid with anonymous executable mappings or a
 *                            mapped jit-PID.dump is JIT-like: its ids
 *                            (uid, pid in its namespace) and handles to its
 *                            /tmp and dump file are taken while it lives
 *   no JIT file yet          a JIT-like pid with code but no known dump or
 *   (sync thread)            perf map: its maps are re-read on a slow timer
 *                            (watch.h), and resynced once they show its dump
 *   exit (sync thread)       a JIT-like pid's files are read a grace period
 *                            later (its last samples may still be queued;
 *                            a perf map written at exit is complete), or
 *                            when no deferred sample waits any more
 *   end of recording         every pid sampled in anonymous memory since
 *                            its last read, and reads still due
 *
 * Only entries holding a sampled pc are embedded. The files belong to the
 * profiled process and are opened like perf does: regular files owned by
 * the process's user or root, no symlink at the last component, no
 * blocking on a FIFO.
 */
#ifndef TREC_JIT_CAPTURE_H
#define TREC_JIT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/jit/jit_table.h"
#include "record/jit/watch.h"

struct trec_jit_capture;
struct trecord_counters;

struct trec_jit_capture *trec_jit_capture_new(trec_jit_write_fn write, void *ctx,
					      struct trecord_counters *cnt, bool verbose,
					      bool quiet);
void trec_jit_capture_free(struct trec_jit_capture *c);

/* A sample's user frames (writer thread). */
void trec_jit_on_frames(struct trec_jit_capture *c, uint32_t pid, uint64_t time_ns,
			const struct trec_rec_frame *f, uint32_t n);
/* A mapping snapshot written for a pid (sync thread). */
void trec_jit_on_mappings(struct trec_jit_capture *c, const struct trec_mapping_snapshot *m);
/* The pid exited (sync thread). */
void trec_jit_on_exit(struct trec_jit_capture *c, uint32_t pid, uint64_t now_ns);
/* While deferred samples wait for their deltas (their pcs not seen yet),
 * reads at exit wait too, up to their time limit (sync thread). */
void trec_jit_hold_exited(struct trec_jit_capture *c, bool hold);
/* Reads whose grace period is over (sync thread, often). */
void trec_jit_tick(struct trec_jit_capture *c, uint64_t now_ns);
/* Pids to resync now (sync thread, often): JIT-like ones with no known JIT
 * file whose maps, re-read a few pids at a time on a slow timer, now show
 * their jitdump. At most TREC_JIT_WATCH_BATCH go in pids. */
size_t trec_jit_recheck(struct trec_jit_capture *c, uint64_t now_ns, uint32_t *pids);
/* End of recording, the other threads stopped: every read still owed. */
void trec_jit_finish(struct trec_jit_capture *c, uint64_t now_ns);
/* A switched file is due (record/flight/): reads now the processes
 * sampled in their JIT code since their last read (sync thread). */
void trec_jit_read_live(struct trec_jit_capture *c, uint64_t now_ns);

#endif /* TREC_JIT_CAPTURE_H */
