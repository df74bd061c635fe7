/* SPDX-License-Identifier: MIT */
/*
 * JIT-like processes whose JIT file trecord has not seen yet.
 *
 * A process may make its code executable before it maps its jit-PID.dump
 * (or writes /tmp/perf-PID.map). A sync of its maps between the two puts
 * the code in the pid/page trie: its samples are then never "unknown", BPF
 * never reports the pid again, and the dump's mapping would go unseen. So
 * the maps of such pids are re-read on a slow timer, a few pids a tick,
 * until a file shows up or the process is gone (sync thread only).
 */
#ifndef TREC_JIT_WATCH_H
#define TREC_JIT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREC_JIT_WATCH_TICK_NS 500000000ULL /* one round of re-reads this often */
#define TREC_JIT_WATCH_BATCH 8              /* pids re-read a round, at most */
#define TREC_JIT_WATCH_MAX 4096             /* pids watched, at most */

struct trec_jit_watch;

struct trec_jit_watch_round {
	uint32_t dump_pids[TREC_JIT_WATCH_BATCH]; /* maps now show their jitdump */
	size_t ndump;
	uint32_t rechecked; /* maps re-read */
	uint32_t found;     /* jitdumps and perf maps found */
};

struct trec_jit_watch *trec_jit_watch_new(void);
void trec_jit_watch_free(struct trec_jit_watch *w);
/* Watches pid, whose files are named by nspid (its pid in its own
 * namespace). false if the watch is full (or out of memory). */
bool trec_jit_watch_add(struct trec_jit_watch *w, uint32_t pid, uint32_t nspid);
void trec_jit_watch_del(struct trec_jit_watch *w, uint32_t pid);
/* A round when one is due: re-reads the maps of the next pids in turn.
 * A pid whose jitdump is mapped now, or whose perf map exists, or that is
 * gone, stops being watched. false if no round was due. */
bool trec_jit_watch_tick(struct trec_jit_watch *w, uint64_t now_ns,
			 struct trec_jit_watch_round *r);
#endif /* TREC_JIT_WATCH_H */
