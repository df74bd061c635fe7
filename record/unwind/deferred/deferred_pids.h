/* SPDX-License-Identifier: MIT */
/*
 * What happened to processes while their NO_PID deferrals wait
 * (bpf/deferred.h's defer_no_pid): when a pid's image last began (fork or
 * exec event, noted by the writer thread before the sync it asks for), and
 * when a sync that started last read a pid's maps or found it gone (noted
 * by the sync thread, after the sync's entries and marker are in). The
 * writer thread reads them: a copy older than its pid's image is another
 * image's stack; a pid found gone after the sample will never be synced;
 * a sync that read the maps before the sample may lack its mappings (a
 * library ld.so mapped since), so the sample waits for a later one.
 *
 * Lock-free and fixed-size: one slot per pid modulo the size keeping the
 * latest time of any pid in it. A collision can make a sample look stale
 * or gone (counted, written leaf-only) or synced a little early (its walk
 * may then miss a mapping), never resume it on another image.
 */
#ifndef TREC_DEFERRED_PIDS_H
#define TREC_DEFERRED_PIDS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Pids are handed out in sequence: two pids share a slot only 64 Ki apart. */
#define TREC_DEFERRED_PID_SLOTS 65536

struct trec_deferred_pids {
	atomic_uint_fast64_t image_ns[TREC_DEFERRED_PID_SLOTS];
	atomic_uint_fast64_t gone_ns[TREC_DEFERRED_PID_SLOTS];
	atomic_uint_fast64_t synced_ns[TREC_DEFERRED_PID_SLOTS];
};

struct trec_pid_event_msg;

/* A fork or exec event: its pid's image began then. p may be NULL. */
void trec_deferred_pids_event(struct trec_deferred_pids *p, const struct trec_pid_event_msg *m);
/* pid's image began at ns (its fork or exec event's time). */
void trec_deferred_pids_image(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns);
/* A sync of pid that started at ns found no process (or a zombie). */
void trec_deferred_pids_gone(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns);
/* A sync of pid that started at ns has its entries and marker in. */
void trec_deferred_pids_synced(struct trec_deferred_pids *p, uint32_t pid, uint64_t ns);
/* Whether a fork or exec of pid came after time t. */
bool trec_deferred_pids_replaced_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t);
/* Whether a sync of pid started after time t found it gone. */
bool trec_deferred_pids_gone_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t);

/* Whether a sync of pid that started after time t is in. */
bool trec_deferred_pids_synced_after(struct trec_deferred_pids *p, uint32_t pid, uint64_t t);

#endif /* TREC_DEFERRED_PIDS_H */
