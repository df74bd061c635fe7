/* SPDX-License-Identifier: MIT */
/*
 * The native unwinder: one frame at a time, from the stack deltas userspace
 * derived from .eh_frame (layout and lookup rule in trec_types.h).
 *
 *   get_stack_delta()        pc -> the unwind_info/command governing it
 *   trec_unwind_one_frame()  cursor of a frame -> cursor of its caller
 *                            (per architecture: native_unwind_<arch>.h),
 *                            by frame pointer where the mapping says so
 *                            (fp_unwind.h)
 *
 * Depends only on the maps of trec_maps.h and standard helper names, so
 * the offline harness can run it as userspace C.
 */
#ifndef TREC_NATIVE_UNWIND_H
#define TREC_NATIVE_UNWIND_H

#include "tracemgmt.h"
#include "delta_rule_cache.h"

#define TREC_MIN_USER_PC 0x1000ULL

static __always_inline int read_user_u64(__u64 *dst, __u64 addr)
{
	return bpf_probe_read_user(dst, sizeof(*dst), (const void *)(unsigned long)addr);
}

/*
 * The first window of a walk that may be replayed: up to the end of the
 * words the last walk of the thread read (st->win_hint_hi), across pages,
 * as the replay's check would read them next (stack_replay.h). One probe
 * read instead of two: each costs 150-250 ns before its bytes on this
 * host, the first of a sample the most. 0 if read; if that read fails
 * (the stack shrank), the page-end window follows. A subprogram
 * (TREC_SUBPROG): verified once, not at each read of the walk.
 */
TREC_SUBPROG int read_hinted_window(struct trec_per_cpu_record *rec, __u64 addr)
{
	struct trec_unwind_state *st;
	__u64 hint, len;

	if (!rec)
		return -1;
	st = &rec->state;
	hint = st->win_hint_hi;
	st->win_hint_hi = 0;
	if (hint <= addr + 8 || hint - addr <= TREC_PAGE_SIZE - (addr & (TREC_PAGE_SIZE - 1)))
		return -1;
	len = hint - addr;
	if (len > TREC_STACK_WINDOW)
		len = TREC_STACK_WINDOW;
	TREC_BARRIER_VAR(len);
	if (len < 8 || len > TREC_STACK_WINDOW ||
	    bpf_probe_read_user(rec->win, len, (const void *)(unsigned long)addr))
		return -1;
	st->win_base = addr;
	st->win_len = len;
	return 0;
}

/* The window's word at byte offset off, 8-aligned (the callers test it):
 * masked as bytes, not shifted to an index the JIT scales back, 2
 * instructions less per read (most of them are the replay check's
 * compares). */
static __always_inline __u64 win_word_at(const __u64 *win, __u64 off)
{
	return *(const __u64 *)((const char *)win + (off & (TREC_STACK_WINDOW - 8)));
}

/*
 * A u64 of the stack being walked, through the window of up to
 * TREC_STACK_WINDOW bytes read at once: a probe read costs about as much
 * for a window as for 8 bytes, and the next frames' slots are usually in
 * it. A window ends at its page's end, which is readable when addr is (a
 * read into the next page could fault past the top of the stack), but
 * for a hinted first one.
 */
static __always_inline int read_stack_window(struct trec_per_cpu_record *rec, __u64 *dst,
					     __u64 addr)
{
	struct trec_unwind_state *st = &rec->state;
	__u64 off = addr - st->win_base;
	__u32 len;

	if (!st->win_base || off > (__u64)st->win_len - 8 || (off & 7)) {
		if (st->win_hint_hi && !read_hinted_window(rec, addr)) {
			*dst = rec->win[0];
			return 0;
		}
		len = TREC_PAGE_SIZE - (addr & (TREC_PAGE_SIZE - 1));
		if (len > TREC_STACK_WINDOW)
			len = TREC_STACK_WINDOW;
		if (len < 8 ||
		    bpf_probe_read_user(rec->win, len, (const void *)(unsigned long)addr)) {
			st->win_base = 0;
			return read_user_u64(dst, addr);
		}
		st->win_base = addr;
		st->win_len = len;
		off = 0;
	}
	*dst = win_word_at(rec->win, off);
	return 0;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "stack_delta_at() assumes little-endian pairs"
#endif

/* stack_deltas[idx] (two deltas per element, trec_types.h) into *d; 0, or
 * -1 past the map. A shift of the pair, not p->d[idx & 1]: a variable
 * offset into the value would keep the verifier from pruning the search's
 * states (1M instructions, rejected). */
static __always_inline int stack_delta_at(__u32 idx, struct trec_stack_delta *d)
{
	__u32 k = idx >> 1;
	struct trec_stack_delta_pair *p = bpf_map_lookup_elem(&stack_deltas, &k);
	__u32 v;

	if (!p)
		return -1;
	v = (__u32)p->both;
	if (idx & 1)
		v = (__u32)(p->both >> 32);
	d->addr_low = (__u16)v;
	d->unwind_info = (__u16)(v >> 16);
	return 0;
}

struct delta_search {
	__u32 lo, hi;
	__u16 low;
	bool bad;
};

/* bpf_loop's callback: one halving of [lo, hi); 1 ends the search. */
static long delta_search_step(__u64 i, void *arg)
{
	struct delta_search *s = arg;
	struct trec_stack_delta d;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + ((s->hi - s->lo) >> 1);
	if (stack_delta_at(mid, &d)) {
		s->bad = true;
		return 1;
	}
	if (d.addr_low <= s->low)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* read_stack_window for the walk: the word goes into the replay log
 * (stack_replay_log.h); a failed read keeps the walk from being replayed. */
static __always_inline int read_stack_u64(struct trec_per_cpu_record *rec, __u64 *dst,
					  __u64 addr)
{
	struct trec_unwind_state *st = &rec->state;

	if (read_stack_window(rec, dst, addr)) {
		replay_stop_logging(st);
		return -1;
	}
	replay_note_word(st, addr, *dst);
	return 0;
}

/*
 * The caller's saved rbp, read for the walk but logged for the replay only
 * once a rule reads rbp (replay_note_fp_word): most code keeps rbp as a
 * general register, whose saved values steer no frame of an SP-based walk,
 * and `deep`'s frames read one such word beside each return address. A
 * restore that a later restore overwrites before any rule reads rbp is
 * never checked; what the walk did depends on the words it logged alone.
 */
static __always_inline int read_stack_fp_word(struct trec_per_cpu_record *rec, __u64 *dst,
					      __u64 addr)
{
	struct trec_unwind_state *st = &rec->state;

	if (read_stack_window(rec, dst, addr)) {
		replay_stop_logging(st);
		return -1;
	}
	st->fp_word_addr = addr;
	st->fp_word_val = *dst;
	st->fp_word_pending = 1;
	return 0;
}

/* A rule reads rbp: the word it was restored from goes into the log. */
static __always_inline void replay_note_fp_word(struct trec_unwind_state *st)
{
	if (!st->fp_word_pending)
		return;
	st->fp_word_pending = 0;
	replay_note_word(st, st->fp_word_addr, st->fp_word_val);
}

/* get_stack_delta()'s result when the file is known but the page of the
 * pc has no deltas (yet): no error is set, the caller may fall back. */
#define TREC_DELTA_NO_PAGE 1

/*
 * Finds the delta for the cursor's pc: the last delta at or before the
 * address (pc - 1 for return addresses, which may point past a call that
 * ends a function). *unwind_info gets its index or command.
 */
static __always_inline int get_stack_delta(struct trec_unwind_state *st, __u16 *unwind_info)
{
	struct trec_delta_page_key key;
	struct trec_delta_page_value *page;
	struct trec_stack_delta d;
	__u32 lo, hi;
	__u64 addr;
	__u16 low;

	addr = st->text_offset - (st->return_address ? 1 : 0);
	key.file_id = st->text_file_id;
	key.page = addr & ~TREC_DELTA_PAGE_MASK;
	low = addr & TREC_DELTA_PAGE_MASK;

	/* The same return address again (a recursion): the same delta. */
	if (st->memo_delta_file && st->memo_delta_file == key.file_id &&
	    st->memo_delta_addr == addr) {
		*unwind_info = st->memo_delta_info;
		return 0;
	}
	/* Found before, in this trace or an earlier one on this CPU. */
	if (delta_cache_get(key.file_id, addr, unwind_info)) {
		st->memo_delta_file = key.file_id;
		st->memo_delta_addr = addr;
		st->memo_delta_info = *unwind_info;
		return 0;
	}
	if (!st->memo_page_file || st->memo_page_file != key.file_id || st->memo_page != key.page) {
		page = bpf_map_lookup_elem(&stack_delta_pages, &key);
		if (!page)
			return TREC_DELTA_NO_PAGE;
		st->memo_page_file = key.file_id;
		st->memo_page = key.page;
		st->memo_page_first = page->first_delta;
		st->memo_page_num = page->num_deltas;
	}
	lo = st->memo_page_first;
	hi = lo + st->memo_page_num;
	if (hi < lo || hi > TREC_MAX_STACK_DELTAS)
		return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
				 TREC_METRIC_NATIVE_DELTA_INVALID);

	/* lo ends at the first delta above addr. 16 halvings cover the at most
	 * 2^16 - 1 deltas a 64 KiB page can hold besides offset 0's. */
	struct delta_search ds = { .lo = lo, .hi = hi, .low = low };

	bpf_loop(TREC_MAX_DELTA_SEARCH_STEPS, delta_search_step, &ds, 0);
	if (ds.bad)
		return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
				 TREC_METRIC_NATIVE_DELTA_INVALID);
	lo = ds.lo;
	hi = ds.hi;
	if (lo < hi)
		return set_error(st, TREC_ERR_NATIVE_EXCEEDED_DELTA_LOOKUP_ITERATIONS,
				 TREC_METRIC_NATIVE_DELTA_LOOKUP_ITERATIONS);
	/* The governing delta is the one before; when that is below the page's
	 * first delta it is the last delta of an earlier page (trecord keeps
	 * deltas[first - 1] meaningful for exactly this). */
	if (lo == 0)
		return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
				 TREC_METRIC_NATIVE_DELTA_INVALID);
	if (stack_delta_at(lo - 1, &d))
		return set_error(st, TREC_ERR_NATIVE_STACK_DELTA_INVALID,
				 TREC_METRIC_NATIVE_DELTA_INVALID);
	*unwind_info = d.unwind_info;
	delta_cache_put(key.file_id, addr, d.unwind_info);
	st->memo_delta_file = key.file_id;
	st->memo_delta_addr = addr;
	st->memo_delta_info = d.unwind_info;
	return 0;
}

/* A return address must look like user text before it is resolved. */
static __always_inline int check_user_pc(struct trec_unwind_state *st, __u64 pc)
{
	if (pc == 0)
		return set_error(st, TREC_ERR_NATIVE_ZERO_PC, TREC_METRIC_NATIVE_ZERO_PC);
	if (pc < TREC_MIN_USER_PC)
		return set_error(st, TREC_ERR_NATIVE_SMALL_PC, TREC_METRIC_NATIVE_SMALL_PC);
	if (pc >> 63)
		return set_error(st, TREC_ERR_NATIVE_KERNEL_ADDRESS,
				 TREC_METRIC_NATIVE_KERNEL_ADDRESS);
	return 0;
}

/* The interned rule for an index, or an error. */
static __always_inline struct trec_unwind_info *get_unwind_info(struct trec_unwind_state *st,
								 __u16 idx)
{
	__u32 key = idx;
	struct trec_unwind_info *ui = bpf_map_lookup_elem(&unwind_info_array, &key);

	if (!ui)
		set_error(st, TREC_ERR_NATIVE_BAD_UNWIND_INFO, TREC_METRIC_NATIVE_BAD_UNWIND_INFO);
	return ui;
}

#include "deferred.h"
#include "fp_unwind.h"
#if defined(__TARGET_ARCH_x86) || (!defined(__TARGET_ARCH_arm64) && defined(__x86_64__))
#include "native_unwind_x86.h"
#elif defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#include "native_unwind_arm64.h"
#else
#error "native unwinder: only x86-64 and arm64 are implemented"
#endif

#endif /* TREC_NATIVE_UNWIND_H */
