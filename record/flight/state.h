/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's state: what a recording must say before its first
 * sample for that sample to read on its own. When a segment of records
 * leaves memory (evicted from the window, or written to a switched file),
 * its lasting records are folded in here; every switched file starts with
 * this state.
 *
 *   kept             META (the first), FILE (each id once), the newest
 *                    MAPPINGS of each pid, PYCODE, the newest JITSYMS of
 *                    each pid and source, BLOB and INTERP_CODE, the newest
 *                    KSYMS and METRICS
 *   dropped          SAMPLE, PID_EVENT (they belong to their moment), and
 *                    MAPPINGS, PYCODE and JITSYMS of a process whose exit is
 *                    older than the cut (the pid was not reused since)
 *
 * So the state grows with the live processes and the distinct files they
 * mapped, not with time.
 */
#ifndef TREC_FLIGHT_STATE_H
#define TREC_FLIGHT_STATE_H

#include "format/containers/u64map.h"
#include "record/flight/memfile.h"

struct trec_flight_state {
	struct trec_memfile mf;    /* sealed and mapped; fd -1 while empty */
	struct trec_u64map exits;  /* pid -> time of its newest exit not yet applied */
};

/* Shown each record of an absorbed segment (trec_flight_state_absorb). */
typedef int (*trec_flight_sink_fn)(void *ctx, const struct trec_record *rec);

/* Folds seg (sealed, mapped) into the state. Exits older than cut_ns free
 * their process's records. sink (may be NULL) sees every record of seg
 * first. 0 or negative errno (the state is then unchanged). */
int trec_flight_state_absorb(struct trec_flight_state *st, const struct trec_memfile *seg,
			     uint64_t cut_ns, trec_flight_sink_fn sink, void *ctx);
/* Calls fn on each record of the state, in order. 0, fn's error, or -errno. */
int trec_flight_state_each(const struct trec_flight_state *st, trec_flight_sink_fn fn,
			   void *ctx);
uint64_t trec_flight_state_bytes(const struct trec_flight_state *st);
void trec_flight_state_free(struct trec_flight_state *st);

#endif /* TREC_FLIGHT_STATE_H */
