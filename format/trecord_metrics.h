/* SPDX-License-Identifier: MIT */
/*
 * trecord's own metrics: the ids from 1000 of the METRICS record (FORMAT.md
 * §6.7), their names and descriptions, for trecord (which counts them) and
 * treport (--info describes them). Append new ones at the end.
 */
#ifndef TREC_TRECORD_METRICS_H
#define TREC_TRECORD_METRICS_H

/* X(name, description); id = 1000 + position. Never reorder. */
#define TRECORD_METRIC_LIST(X)                                                  \
	/* Counted by trecords that had a ring thread and queue (to stop 36): \
	 * the writer now reads the ring buffer itself. */                     \
	X(QUEUE_DROPPED_TRACES, "traces dropped: writer queue full (older trecord)") \
	X(QUEUE_DROPPED_EVENTS, "pid events dropped: writer queue full (older trecord)") \
	X(BAD_MESSAGES, "malformed ring buffer messages")                       \
	X(SAMPLES_WRITTEN, "sample records written")                            \
	X(SAMPLES_UNKNOWN_PID, "samples of a pid not synced yet")              \
	X(SAMPLES_UNKNOWN_PC, "samples with a pc outside known mappings")      \
	X(KERNEL_STACKS_MISSING, "kernel stack ids not found in the map")       \
	X(PID_EVENTS_WRITTEN, "pid event records written")                      \
	X(PID_SYNCS, "process syncs")                                           \
	X(PID_SYNCS_GONE, "syncs of processes that had already exited")         \
	X(PID_SYNCS_CHANGED, "syncs that found new mappings")                   \
	X(PIDS_TRACKED, "processes with mappings in the LPM trie now")         \
	X(FILES, "distinct mapped files")                                       \
	X(FILES_WITH_DELTAS, "files whose stack deltas are loaded")            \
	X(DELTA_FAILURES, "files whose stack deltas could not be loaded")      \
	X(LPM_ENTRIES, "LPM trie entries now")                                  \
	X(LPM_FAILURES, "LPM trie updates that failed")                         \
	X(STACK_DELTAS_USED, "stack_deltas entries used")                       \
	X(UNWIND_INFOS_USED, "unwind_info_array entries used")                  \
	X(DELTA_PAGES_USED, "stack_delta_pages entries used")                    \
	X(PY_INTERPRETERS, "python: mapped files detected as CPython")        \
	X(PY_UNSUPPORTED, "python: CPython files that cannot be unwound")     \
	X(PY_PIDS, "python: processes set up for python stacks")              \
	X(PY_PID_FAILURES, "python: processes whose libc TSD layout is unknown") \
	X(PY_CODE_WRITTEN, "python: code object descriptions written")         \
	X(PY_CODE_UNREADABLE, "python: code objects that could not be read")   \
	X(PY_CODE_STALE, "python: code objects replaced before they were read") \
	X(PID_FORK_COPIES, "forked processes synced from their parent's mappings") \
	X(JIT_FILES_READ, "jit: perf maps and jitdump files read")             \
	X(JIT_SYMBOLS_WRITTEN, "jit: JIT names written (JITSYMS entries)")      \
	X(JIT_BAD_INPUT, "jit: malformed perf map lines and jitdump records") \
	X(PHP_ENGINES, "php: mapped files detected as a Zend engine")          \
	X(PHP_UNSUPPORTED, "php: Zend engines that cannot be unwound")         \
	X(PHP_PIDS, "php: processes set up for php stacks")                   \
	X(PHP_CODE_WRITTEN, "php: function descriptions written")              \
	X(PHP_CODE_UNREADABLE, "php: functions that could not be read")        \
	X(PHP_CODE_STALE, "php: functions replaced before they were read") \
	X(OFFCPU_UNFINISHED, "off-CPU: threads still blocked at the end (no record: no end)") \
	X(PERL_INTERPRETERS, "perl: mapped files detected as a Perl we can unwind") \
	X(PERL_UNSUPPORTED, "perl: Perl files that cannot be unwound")        \
	X(PERL_PIDS, "perl: processes set up for perl stacks")                \
	X(PERL_PID_FAILURES, "perl: processes whose libc TSD layout is unknown") \
	X(PERL_CODE_WRITTEN, "perl: frame descriptions written")             \
	X(PERL_CODE_UNREADABLE, "perl: frame descriptions that could not be read") \
	X(PERL_CODE_STALE, "perl: statements replaced before they were read") \
	X(FLIGHT_SAMPLES_EVICTED, "flight recorder: samples older than the window, dropped") \
	X(FLIGHT_SAMPLES_CUT, "flight recorder: samples dropped early: window memory cap") \
	X(FLIGHT_FILES, "flight recorder: switched files written") \
	X(RB_INTERPRETERS, "ruby: mapped files detected as libruby")          \
	X(RB_UNSUPPORTED, "ruby: libruby files that cannot be unwound")       \
	X(RB_PIDS, "ruby: processes set up for ruby stacks")                  \
	X(RB_CODE_WRITTEN, "ruby: iseq descriptions written")                 \
	X(RB_CODE_UNREADABLE, "ruby: iseqs that could not be read")           \
	X(RB_CODE_STALE, "ruby: iseqs replaced before they were read") \
	X(DELTA_CACHE_HITS, "files whose stack deltas came from the delta cache") \
	X(DELTA_CACHE_REJECTED, "damaged delta cache entries ignored") \
	X(DEFERRED_RESUMED, "deferred samples walked on in userspace once their deltas loaded") \
	X(DEFERRED_EXPIRED, "deferred samples walked without waiting longer (deltas too slow, or at the end)") \
	X(DEFERRED_DROPPED, "deferred samples written as BPF left them: pending cap reached") \
	X(JIT_MAPS_RECHECKED, "jit: maps re-read of JIT-like processes with no JIT file seen yet") \
	X(JIT_FILES_FOUND_LATE, "jit: jitdumps and perf maps those re-reads found") \
	X(JIT_UNWATCHED, "jit: JIT-like processes not re-read: watch list full") \
	X(DEFERRED_NO_PID_GONE, "deferred samples of unsynced processes that exited before their maps were read: leaf only") \
	X(DEFERRED_NO_PID_STALE, "deferred samples of unsynced processes that exec'd (or whose pid was reused) before the sync: leaf only") \
	X(TRACES_DELTA_NO_BASE, "trace deltas whose previous trace on their CPU was lost: leaf only") \
	X(SYNC_REQUESTS_DROPPED, "process sync requests dropped: queue full (synced when next reported)") \
	X(INTERP_DESCRIBES_DEFERRED, "interpreter frames not described yet: past 64 MiB/s of reads (a later sample describes them)") \
	X(OFFCPU_WAITS_WRITTEN, "off-CPU waits written (sample records with the off-CPU flag; in SAMPLES_WRITTEN too)") \
	X(FILES_KEPT_OPEN, "ELF files their path does not reach (another mount namespace, deleted): kept open for their symbols") \
	X(FILES_NOT_KEPT, "such files not kept open: the cap of kept files reached, or the fd limit near")

#define TRECORD_METRIC_BASE 1000
enum trecord_metric {
#define TREC_X(name, desc) TRECORD_METRIC_##name,
	TRECORD_METRIC_LIST(TREC_X)
#undef TREC_X
	TRECORD_METRIC_COUNT
};

#endif /* TREC_TRECORD_METRICS_H */
