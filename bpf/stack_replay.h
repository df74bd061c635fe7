/* SPDX-License-Identifier: MIT */
/*
 * "Same stack as last time", proven: a native walk that reaches, at frame
 * f (1..TREC_REPLAY_CURSORS), the very cursor the previous walk of the
 * thread on this CPU had at frame f, would repeat that walk's frames f..
 * if everything the rest of that walk depended on is unchanged
 * (stack_replay_log.h). So the words it read from there on are read again
 * and compared, the trie pages it resolved are looked up again and
 * compared, and its files are checked to be no interpreter's still; only
 * then are its frames, still in the per-CPU record, kept as they are.
 * Any difference: the walk goes on as if nothing had been tried.
 *
 * The frames are only still there when the previous trace on this CPU
 * was that walk: trace_reset hands the "replayable" mark to the new trace
 * and clears it, and only a walk logged to the end sets it again.
 */
#ifndef TREC_STACK_REPLAY_H
#define TREC_STACK_REPLAY_H

#include "native_unwind.h"

/*
 * Quiet mode. Logging costs a walk 6-9% of its BPF time (libc's qsort
 * under `busy`, whose stack changes from one sample to the next), wasted
 * where replays never succeed. After TREC_REPLAY_QUIET_AFTER failed tries
 * in a row on a CPU (a try: a logged walk whose predecessor on the CPU
 * was a complete log of the same thread), its walks go in cycles of four:
 * the first is logged whole, the second logs its cursors (frames 1-4) and
 * tries a replay there, the other two are not logged. One replay that
 * succeeds ends the quiet mode. A replay is still proven the same way.
 */
#define TREC_REPLAY_QUIET_AFTER 8

/* Whether this walk logs; updates the quiet mode with the last try's
 * outcome. chance: a try if it logs. */
static __always_inline bool replay_quiet_begin(struct trec_per_cpu_record *rec, bool chance)
{
	struct trec_unwind_state *st = &rec->state;
	__u8 phase;

	if (rec->replay_try && !rec->replay_hit && rec->replay_misses < 255)
		rec->replay_misses++;
	rec->replay_try = 0;
	rec->replay_hit = 0;
	if (rec->replay_misses < TREC_REPLAY_QUIET_AFTER) {
		rec->replay_try = chance;
		return true;
	}
	phase = rec->replay_phase;
	rec->replay_phase = (phase + 1) & 3;
	if (phase == 0)
		return true;
	increment_metric(TREC_METRIC_REPLAY_QUIET);
	if (phase > 1)
		return false;
	st->replay_cursors_only = 1;
	rec->replay_try = chance;
	return true;
}

/* Starts logging the user walk of a trace (collect_trace_in). */
static __always_inline void replay_begin(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;

	st->replay_logging = 0;
#if defined(__TARGET_ARCH_x86) || (!defined(__TARGET_ARCH_arm64) && defined(__x86_64__))
	struct trec_replay_log *log, *old;
	__u32 idx = rec->replay_log ^ 1;
	bool chance;

	/* Kernel frames inline: their scratch overwrote the frames' tail, and
	 * user frames do not start at 0. Neither replayed nor logged. */
	if (rec->trace.num_frames || ((rec->trace.flags & TREC_TRACE_F_KERNEL_MODE) &&
				      rec->trace.kernel_stack_id < 0)) {
		st->replay_from = 0;
		return;
	}
	old = st->replay_from ? replay_log(rec->replay_log) : NULL;
	chance = old && old->pid == rec->trace.pid && old->tid == rec->trace.tid;
	if (!replay_quiet_begin(rec, chance))
		return;
	log = replay_log(idx);
	if (!log)
		return;
	log->num_words = log->num_pages = log->num_files = log->num_cursors = 0;
	log->unordered = 0;
	log->maps_gen = trec_maps_gen;
	st->replay_idx = idx;
	st->replay_logging = 1;
	if (chance && old->num_words && old->num_words <= TREC_REPLAY_WORDS)
		st->win_hint_hi =
			old->words[(old->num_words - 1) & (TREC_REPLAY_WORDS - 1)].addr + 8;
#else
	st->replay_from = 0; /* arm64: its link register is not logged */
#endif
}

/* Before frame f is pushed: logs the cursor; true if the previous walk
 * had this cursor at f (a replay is worth trying). */
static __always_inline bool replay_at_cursor(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	struct trec_replay_log *log, *old;
	__u32 f = rec->trace.num_frames;

	/* Quiet: past the cursors, a walk that did not replay logs no more
	 * (its log is not kept). */
	if (f > TREC_REPLAY_CURSORS && st->replay_cursors_only)
		replay_stop_logging(st);
	if (!st->replay_logging || f < 1 || f > TREC_REPLAY_CURSORS || !st->return_address)
		return false;
	log = replay_log(st->replay_idx);
	if (!log)
		return false;
	log->cur[f].pc = st->pc;
	log->cur[f].sp = st->sp;
	log->cur[f].fp = st->fp;
	log->cur[f].words = log->num_words;
	log->cur[f].native_frames = st->native_frames;
	log->num_cursors = f;
	if (!st->replay_from || st->replay_tried)
		return false;
	old = replay_log(rec->replay_log);
	if (!old || old->pid != rec->trace.pid || old->tid != rec->trace.tid ||
	    old->num_cursors < f || old->cur[f].pc != st->pc || old->cur[f].sp != st->sp ||
	    old->cur[f].fp != st->fp || old->num_frames < f)
		return false;
	st->replay_tried = 1;
	return true;
}

/* Words checked per bpf_loop iteration: the callback's call and return
 * cost more than a word's check, the more where every return goes
 * through a mitigation thunk (AMD's SRSO "Safe RET"). On such a host, 4
 * -> 16 words cut a 250-deep replayed trace's BPF time by 14-30% (one
 * run's split), 16 -> 32 by 0-8%. */
#define TREC_REPLAY_CHECK_UNROLL 32
/* Words after a call's first checked in one unrolled run when the log is
 * in address order (trec_replay_log.unordered). */
#define TREC_REPLAY_CHECK_RUN 31
#ifdef __clang__
#define TREC_UNROLL _Pragma("unroll")
#else /* the offline harness, built by gcc */
#define TREC_UNROLL _Pragma("GCC unroll 32")
#endif

/* The check's constants. What it changes (the next word to check, and
 * whether all were the same) is in the record: in this context, on the
 * stack, the verifier would track each value and go over the callback
 * again for each (trec_per_cpu_record.loop_next). */
struct replay_check {
	struct trec_per_cpu_record *rec;
	struct trec_replay_log *old;
	__u64 hi; /* the end of the old log's last word */
	__u32 end; /* the end of the old log's words */
};

/*
 * The check's read of the word at addr, through the stack window. The
 * old walk read words up to hi, so the stack between was readable then,
 * and one probe read may cross its pages where the walk's stop at each
 * page's end (not knowing where the stack ends, a read past its top
 * faults): `chain`'s 250 frames span 14 pages, whose reads were most of
 * its check. A read that fails now (a walk that changed stacks, a stack
 * that shrank) falls back to the walk's.
 */
static __always_inline int replay_read_window(struct trec_per_cpu_record *rec, __u64 *dst,
					      __u64 addr, __u64 hi)
{
	struct trec_unwind_state *st = &rec->state;
	__u64 off = addr - st->win_base, len = hi - addr;

	if (st->win_base && off <= (__u64)st->win_len - 8 && !(off & 7)) {
		*dst = win_word_at(rec->win, off);
		return 0;
	}
	if (hi > addr && len > TREC_PAGE_SIZE - (addr & (TREC_PAGE_SIZE - 1))) {
		if (len > TREC_STACK_WINDOW)
			len = TREC_STACK_WINDOW;
		TREC_BARRIER_VAR(len);
		if (len >= 8 && len <= TREC_STACK_WINDOW &&
		    !bpf_probe_read_user(rec->win, len, (const void *)(unsigned long)addr)) {
			st->win_base = addr;
			st->win_len = len;
			*dst = rec->win[0];
			return 0;
		}
	}
	return read_stack_window(rec, dst, addr);
}

/*
 * bpf_loop's callback: the old log's words from replay_check_next, read
 * again (not logged: the check's reads are no part of this walk) and
 * compared. Its first word goes through the stack window, which moves to
 * it if need be; the next ones are compared in the window as it is. Only
 * that one read may fill the window: with a fill in each unrolled read,
 * this callback was half of the native program's verification. The
 * compares are most of the check's cost (250 words a sample on `deep`),
 * so they test no more than they must. Every logged word is 8-aligned
 * (replay_note_word), so the window's base is too once it holds the
 * first: offsets need no test of their low bits. In a log in address
 * order, up to TREC_REPLAY_CHECK_RUN words are in the window if the last
 * of them is: unrolled, each is a load and a compare. Otherwise, word by
 * word up to the first outside the window, where the next call starts.
 * 1 ends the loop.
 */
static long replay_check_words(__u64 i, void *arg)
{
	struct replay_check *c = arg;
	struct trec_unwind_state *st = &c->rec->state;
	const struct trec_replay_word *words = c->old->words;
	const __u64 *win = c->rec->win;
	__u64 w = c->rec->replay_check_next, rem, v, base, last, off, k, j;

	if (w >= c->end) {
		c->rec->replay_check_same = 1;
		return 1;
	}
	w &= TREC_REPLAY_WORDS - 1;
	if (replay_read_window(c->rec, &v, words[w].addr, c->hi) || v != words[w].val)
		return 1;
	base = st->win_base;
	last = (__u64)st->win_len - 8;
	if (!base) { /* read around the window: the next word starts a call */
		c->rec->replay_check_next = w + 1;
		return 0;
	}
	rem = c->end - w;
	/* The run, else this word again next call, word by word: the one way
	 * into the loop below, whose state the run's tests must not narrow
	 * (the verifier would go over it once more, iteration by iteration,
	 * for each way in). */
	if (!(c->rec->replay_check_slow | c->old->unordered)) {
		/* Whole runs only: a test of k against the words left cost each
		 * compare 2 more instructions. The last words, fewer than a run,
		 * go word by word. */
		if (rem > TREC_REPLAY_CHECK_RUN && w < TREC_REPLAY_WORDS - TREC_REPLAY_CHECK_RUN &&
		    words[w + TREC_REPLAY_CHECK_RUN].addr - base <= last) {
			const struct trec_replay_word *run = &words[w + 1];

			TREC_UNROLL
			for (k = 0; k < TREC_REPLAY_CHECK_RUN; k++)
				if (win_word_at(win, run[k].addr - base) != run[k].val)
					return 1;
			if (rem == TREC_REPLAY_CHECK_RUN + 1) {
				c->rec->replay_check_same = 1;
				return 1;
			}
			c->rec->replay_check_next = w + 1 + TREC_REPLAY_CHECK_RUN;
			return 0;
		}
		c->rec->replay_check_slow = 1;
		return 0;
	}
	c->rec->replay_check_slow = 0;
	for (k = 1; k < TREC_REPLAY_CHECK_UNROLL; k++) {
		if (k >= rem)
			break;
		j = (w + k) & (TREC_REPLAY_WORDS - 1);
		off = words[j].addr - base;
		if (off > last)
			break;
		if (win_word_at(win, off) != words[j].val)
			return 1;
	}
	if (k >= rem) {
		c->rec->replay_check_same = 1;
		return 1;
	}
	c->rec->replay_check_next = w + k;
	return 0;
}

/* The trie still maps the old walk's pages as it did, and no interpreter
 * range appeared for its files: so if trecord changed neither map since
 * the old walk began (trec_maps_gen), else by asking them again. Checked,
 * the old log holds as of this walk's beginning (log: this walk's). */
static __always_inline bool replay_same_maps(struct trec_per_cpu_record *rec,
					     struct trec_replay_log *old,
					     const struct trec_replay_log *log)
{
	struct trec_pid_page_key key = {
		.prefix_len = 96,
		.pid_be = __builtin_bswap32(rec->mappings_pid),
	};
	struct trec_pid_page_value *v;

	if (old->maps_gen == trec_maps_gen)
		return true;
	for (__u32 i = 0; i < TREC_REPLAY_PAGES; i++) {
		if (i >= old->num_pages)
			break;
		key.page_be = __builtin_bswap64(old->pages[i].page << 12);
		v = bpf_map_lookup_elem(&pid_page_to_mapping_info, &key);
		if (!v || v->file_id != old->pages[i].file_id ||
		    v->bias_and_unwinder != old->pages[i].bias_and_unwinder)
			return false;
	}
	for (__u32 i = 0; i < TREC_REPLAY_FILES; i++) {
		if (i >= old->num_files)
			break;
		if (bpf_map_lookup_elem(&interpreter_offsets, &old->files[i]))
			return false;
	}
	old->maps_gen = log->maps_gen;
	return true;
}

/* Words of the frames before f a walk may log and still be kept. */
#define TREC_REPLAY_PREFIX_WORDS 32

/*
 * The replayed trace's log is the old one with this walk's frames before f
 * in place of the old walk's: the same words from f on (just proven), the
 * same pages and files (just checked). Only when both walks logged as many
 * words before f and the same pages and files first; otherwise this trace
 * is not replayable.
 */
static __always_inline void replay_adopt_log(struct trec_per_cpu_record *rec,
					     struct trec_replay_log *old,
					     struct trec_replay_log *log, __u32 f)
{
	struct trec_unwind_state *st = &rec->state;
	__u32 n = log->num_words;
	__s32 shift = (__s32)st->native_frames - old->cur[f].native_frames;

	if (n != old->cur[f].words || n > TREC_REPLAY_PREFIX_WORDS)
		return replay_stop_logging(st);
	for (__u32 w = 0; w < TREC_REPLAY_PREFIX_WORDS; w++) {
		if (w >= n)
			break;
		old->words[w] = log->words[w];
	}
	/* In order if both parts are, and where they meet. */
	old->unordered |= log->unordered;
	if (n && n < old->num_words && n <= TREC_REPLAY_PREFIX_WORDS &&
	    old->words[(n - 1) & (TREC_REPLAY_WORDS - 1)].addr >
		    old->words[n & (TREC_REPLAY_WORDS - 1)].addr)
		old->unordered = 1;
	for (__u32 g = 1; g <= TREC_REPLAY_CURSORS; g++) {
		if (g <= f)
			old->cur[g] = log->cur[g];
		else
			old->cur[g].native_frames += shift;
	}
	/* This walk's pages and files so far: the old walk's first ones, in
	 * the same order, when the leaf is in the same function. */
	if (log->num_pages > old->num_pages || log->num_files > old->num_files)
		return replay_stop_logging(st);
	for (__u32 i = 0; i < TREC_REPLAY_PAGES; i++)
		if (i < log->num_pages && log->pages[i].page != old->pages[i].page)
			return replay_stop_logging(st);
	for (__u32 i = 0; i < TREC_REPLAY_FILES; i++)
		if (i < log->num_files && log->files[i] != old->files[i])
			return replay_stop_logging(st);
	st->replay_idx = rec->replay_log;
}

/*
 * At a cursor replay_at_cursor() matched (frame f): proves the rest of the
 * old walk unchanged and ends the trace with its frames f.. (still in the
 * record) and its ending. False if anything differs: the walk goes on.
 * A subprogram (TREC_SUBPROG): its checks are verified once, not at every
 * frame of the loop that calls it.
 */
TREC_SUBPROG int replay_rest(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st;
	struct trec_replay_log *old, *log;
	__u32 f;
	struct replay_check c = { .rec = rec };
	__u32 next;

	if (!rec)
		return false;
	st = &rec->state;
	old = replay_log(rec->replay_log);
	log = replay_log(st->replay_idx);
	f = rec->trace.num_frames;
	c.old = old;
	if (!old || !log || f < 1 || f > TREC_REPLAY_CURSORS || old->num_words > TREC_REPLAY_WORDS)
		return false;
	next = old->cur[f].words;
	c.end = old->num_words;
	if (next > c.end)
		return false;
	rec->replay_check_next = next;
	rec->replay_check_same = 0;
	rec->replay_check_slow = 0;
	c.hi = c.end ? old->words[(c.end - 1) & (TREC_REPLAY_WORDS - 1)].addr + 8 : 0;
	/* Each call checks one word or more, or hands its word to the next
	 * call (replay_check_slow). */
	bpf_loop(2 * (c.end - next) + 2, replay_check_words, &c, 0);
	if (!rec->replay_check_same || !replay_same_maps(rec, old, log))
		return false;
	st->native_frames += old->native_frames - old->cur[f].native_frames;
	rec->trace.num_frames = old->num_frames;
	st->unwind_error = old->unwind_error;
	st->error_metric = old->error_metric;
	st->replay_stopped = old->stopped;
	if (old->stopped)
		increment_metric(TREC_METRIC_NATIVE_STOPPED);
	increment_metric(TREC_METRIC_STACK_REPLAYED);
	rec->replay_hit = 1;
	rec->replay_misses = 0;
	st->replay_cursors_only = 0; /* its log is whole again: adopted below */
	st->replay_at = f; /* frames f.. are the last trace's (trace_delta.h) */
	replay_adopt_log(rec, old, log, f);
	return true;
}

/* The walk ended in the native program (next: STOP): if it was logged to
 * the end, the next trace on this CPU may replay it. */
static __always_inline void replay_finish(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	struct trec_replay_log *log;

	if (!st->replay_logging || st->defer_pending || st->deferred || st->defer_refused ||
	    rec->tail_calls != 1)
		return;
	log = replay_log(st->replay_idx);
	if (!log)
		return;
	log->pid = rec->trace.pid;
	log->tid = rec->trace.tid;
	log->num_frames = rec->trace.num_frames;
	log->unwind_error = st->unwind_error;
	log->error_metric = st->error_metric;
	log->native_frames = st->native_frames;
	log->stopped = st->replay_stopped;
	rec->replay_log = st->replay_idx;
	rec->replay_valid = 1;
}

#endif /* TREC_STACK_REPLAY_H */
