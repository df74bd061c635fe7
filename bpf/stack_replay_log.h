/* SPDX-License-Identifier: MIT */
/*
 * What a native walk depended on, logged as it runs, so that the next
 * sample of the same thread on this CPU can prove its outer frames are the
 * same and reuse them (bpf/stack_replay.h) instead of walking them again.
 *
 * A walk of native code by stack deltas is a function of its cursor
 * (pc, sp, fp), the stack words it reads, the trie entries of the pages
 * its pcs fall in and the absence of interpreter ranges for their files:
 * deltas and unwind rules never change once written (delta_rule_cache.h).
 * The log holds exactly those: every word read (address and value), every
 * page resolved (and what the trie said), every file checked, and the
 * cursor at the first frames. Anything else a walk may depend on (frame
 * pointers, signal frames, VMAs, interpreters, deferral, a failed read)
 * stops the logging, and such a walk is never replayed.
 *
 * Two logs per CPU: the walk being logged and the last complete one.
 */
#ifndef TREC_STACK_REPLAY_LOG_H
#define TREC_STACK_REPLAY_LOG_H

#include "trec_maps.h"

#define TREC_REPLAY_WORDS 1024 /* a power of two: indexes are masked */
#define TREC_REPLAY_PAGES 16
#define TREC_REPLAY_FILES 8
/* A replay may start at frames 1..this (the leaf's pc always differs). */
#define TREC_REPLAY_CURSORS 4

struct trec_replay_word {
	__u64 addr, val;
};

struct trec_replay_page {
	__u64 page; /* pc >> 12 */
	__u64 file_id, bias_and_unwinder;
};

/* The walk's cursor before frame f was pushed, and how far the log and
 * the frame count were then. */
struct trec_replay_cursor {
	__u64 pc, sp, fp;
	__u32 words;
	__u16 native_frames;
	__u16 pad;
};

struct trec_replay_log {
	__u64 maps_gen; /* trec_maps_gen before the walk's first lookup */
	__u32 pid, tid;
	__u32 num_words, num_pages, num_files, num_cursors;
	/* How the walk ended: frames before the abort frame, its error. */
	__u32 num_frames;
	__u32 unwind_error;
	__s32 error_metric;
	__u16 native_frames;
	__u8 stopped; /* ended at a STOP rule (NATIVE_STOPPED) */
	/* A word below the one logged before it: the check may not take a
	 * run of words as inside the window from its last one's address. */
	__u8 unordered;
	struct trec_replay_cursor cur[TREC_REPLAY_CURSORS + 1];
	struct trec_replay_page pages[TREC_REPLAY_PAGES];
	__u64 files[TREC_REPLAY_FILES];
	struct trec_replay_word words[TREC_REPLAY_WORDS];
};

/*
 * The generation of the maps a walk looks up and may change: the trie and
 * interpreter_offsets. trecord adds 1 after each change it makes to them
 * (trec_maps_changed, record/unwind/map_sinks.h), and forget_pid() when
 * an exec or exit drops a process's sync marker. A log taken at the
 * generation still current was taken over the same maps: no page or file
 * of it is asked again.
 */
TREC_BSS(__u64, trec_maps_gen);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct trec_replay_log);
} replay_logs SEC(".maps");

static __always_inline struct trec_replay_log *replay_log(__u32 idx)
{
	return bpf_map_lookup_elem(&replay_logs, &idx);
}

/* This walk depends on something the log cannot prove again. No replay
 * follows, so neither does a first window up to the last walk's words
 * (native_unwind.h's read_hinted_window: after a signal frame it could
 * read from another stack). */
static __always_inline void replay_stop_logging(struct trec_unwind_state *st)
{
	st->replay_logging = 0;
	st->win_hint_hi = 0;
}

/* The log this walk writes, or NULL: not logging, or (then logging stops)
 * no log to write. */
static __always_inline struct trec_replay_log *replay_open_log(struct trec_unwind_state *st)
{
	struct trec_replay_log *log;

	if (!st->replay_logging)
		return NULL;
	log = replay_log(st->replay_idx);
	if (!log)
		replay_stop_logging(st);
	return log;
}

/* A word the walk read. Only 8-aligned ones (any stack slot a rule names
 * in practice): the replay's check indexes its window without testing an
 * offset's low bits (stack_replay.h). */
static __always_inline void replay_note_word(struct trec_unwind_state *st, __u64 addr, __u64 val)
{
	struct trec_replay_log *log;
	__u32 n;

	log = replay_open_log(st);
	if (!log)
		return;
	n = log->num_words;
	if (n >= TREC_REPLAY_WORDS || (addr & 7))
		return replay_stop_logging(st);
	if (n && addr < log->words[(n - 1) & (TREC_REPLAY_WORDS - 1)].addr)
		log->unordered = 1;
	log->words[n].addr = addr;
	log->words[n].val = val;
	log->num_words = n + 1;
}

/* The two notes below are subprograms (TREC_SUBPROG): inlined, their
 * spills pushed the Python program past BPF's 512 stack bytes. */

/* A trie answer for pc's page (resolve_text). resolve_text's memo keeps a
 * page's frames from asking twice in a row; a page met again later is
 * logged again (checked twice). */
TREC_SUBPROG int replay_note_page(struct trec_unwind_state *st, __u64 pc,
			      __u64 file_id, __u64 bias_and_unwinder)
{
	struct trec_replay_log *log;
	__u32 n;

	if (!st)
		return 0;
	log = replay_open_log(st);
	if (!log)
		return 0;
	n = log->num_pages;
	if (n >= TREC_REPLAY_PAGES) {
		replay_stop_logging(st);
		return 0;
	}
	log->pages[n].page = pc >> 12;
	log->pages[n].file_id = file_id;
	log->pages[n].bias_and_unwinder = bias_and_unwinder;
	log->num_pages = n + 1;
	return 0;
}

/* A file interpreter_offsets did not have (next_unwinder's memo keeps it
 * from asking twice in a row). */
TREC_SUBPROG int replay_note_file(struct trec_unwind_state *st, __u64 file_id)
{
	struct trec_replay_log *log;
	__u32 n;

	if (!st)
		return 0;
	log = replay_open_log(st);
	if (!log)
		return 0;
	n = log->num_files;
	if (n >= TREC_REPLAY_FILES) {
		replay_stop_logging(st);
		return 0;
	}
	log->files[n] = file_id;
	log->num_files = n + 1;
	return 0;
}

#endif /* TREC_STACK_REPLAY_LOG_H */
