// SPDX-License-Identifier: MIT
/*
 * Deferred unwinding's userspace half: the queue's parsing of hostile
 * TREC_MSG_DEFERRED messages, its pending cap, and the resumed walk
 * (record/unwind/deferred/deferred_walk.c) over a copied stack, on real BPF maps
 * filled by hand: a whole stack, a file still loading (waits, then the
 * frame-pointer fallback's NO_PAGE_INFO), and a caller beyond a full copy
 * (NATIVE_DEFERRED_STACK_END). NO_PID deferrals (a process not synced
 * yet): malformed ones refused, the wait for the pid's marker, the walk
 * from the leaf, and the samples that cannot be resumed (exec'd or reused
 * pid, process gone, waited too long, cap) written leaf-only, counted.
 * A pass's memo of lookups: found answers reused, defer_files asked afresh.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "record/io/metrics.h"
#include "record/unwind/deferred/deferred_queue.h"
#include "record/unwind/deferred/lookup_memo.h"
#include "unit_check.h"

#define PID 1234
#define FILE_OK 7      /* deltas loaded: [0x400000, 0x410000) */
#define FILE_LOADING 9 /* still loading: [0x500000, 0x510000) */
#define SP 0x7fff0000ULL
#define T0 1000000000ULL /* the samples' time */
#define MS 1000000ULL

static struct trec_deferred_walk_fds fds;
static struct trec_trace emitted[8];
static size_t num_emitted;

static void emit(void *arg, const struct trec_trace *t, size_t len)
{
	(void)arg;
	if (num_emitted < 8 && len <= sizeof(*t))
		memcpy(&emitted[num_emitted], t, len);
	num_emitted++;
}

static int make_maps(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, lpm_opts, .map_flags = BPF_F_NO_PREALLOC);
	LIBBPF_OPTS(bpf_map_create_opts, mm_opts, .map_flags = BPF_F_MMAPABLE);

	fds.maps.lpm = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "t_lpm", sizeof(struct trec_pid_page_key),
				      sizeof(struct trec_pid_page_value), 16, &lpm_opts);
	fds.maps.pages = bpf_map_create(BPF_MAP_TYPE_HASH, "t_pages", sizeof(struct trec_delta_page_key),
					sizeof(struct trec_delta_page_value), 16, NULL);
	fds.maps.deltas = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_deltas", 4,
					 sizeof(struct trec_stack_delta_pair), 16, &mm_opts);
	fds.maps.infos = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_infos", 4,
					sizeof(struct trec_unwind_info), 4, NULL);
	fds.maps.defer_files = bpf_map_create(BPF_MAP_TYPE_HASH, "t_defer", 8, 1, 16, NULL);
	fds.interp = bpf_map_create(BPF_MAP_TYPE_HASH, "t_interp", 8, sizeof(struct trec_offset_range),
				    4, NULL);
	if (fds.maps.lpm < 0 || fds.maps.pages < 0 || fds.maps.deltas < 0 || fds.maps.infos < 0 ||
	    fds.maps.defer_files < 0 || fds.interp < 0)
		return -1;

	/* Two files of pid PID, 64 KiB each. */
	for (int i = 0; i < 2; i++) {
		uint64_t start = i ? 0x500000 : 0x400000;
		struct trec_pid_page_key k = { .prefix_len = 32 + 48, .pid_be = htobe32(PID),
					       .page_be = htobe64(start) };
		struct trec_pid_page_value v = {
			.file_id = i ? FILE_LOADING : FILE_OK,
			.bias_and_unwinder = (uint64_t)TREC_PROG_UNWIND_NATIVE << TREC_UNWINDER_SHIFT,
		};
		if (bpf_map_update_elem(fds.maps.lpm, &k, &v, BPF_ANY))
			return -1;
	}
	/* FILE_OK: cfa = sp + 16 from 0x400000, STOP from 0x400800. */
	struct trec_delta_page_key pk = { .file_id = FILE_OK, .page = 0x400000 };
	struct trec_delta_page_value pv = { .first_delta = 1, .num_deltas = 2 };
	struct trec_stack_delta_pair d[2] = {
		{ .d = { { 0, 0 }, { 0x000, 0 } } },
		{ .d = { { 0x800, TREC_UNWIND_COMMAND | TREC_CMD_STOP } } },
	};
	struct trec_unwind_info ui = { .cfa_reg = TREC_REG_SP, .cfa_param = 16, .fp_rule = TREC_FP_SAME };
	uint32_t key = 0;
	uint64_t loading = FILE_LOADING;
	uint8_t one = 1;

	if (bpf_map_update_elem(fds.maps.pages, &pk, &pv, BPF_ANY) ||
	    bpf_map_update_elem(fds.maps.infos, &key, &ui, BPF_ANY) ||
	    bpf_map_update_elem(fds.maps.defer_files, &loading, &one, BPF_ANY))
		return -1;
	for (key = 0; key < 2; key++)
		if (bpf_map_update_elem(fds.maps.deltas, &key, &d[key], BPF_ANY))
			return -1;
	fds.maps.deltas_mem = NULL; /* lookups by fd; trecord's mmap is its own concern */
	return 0;
}

/* A deferral at leaf pc with return addresses ras[] at sp + 8, sp + 24, ...
 * (each frame 16 bytes), stack_len bytes copied from sp - BELOW_SP. */
static struct trec_deferred_msg *make_msg(uint64_t pc, const uint64_t *ras, int n, uint32_t stack_len)
{
	struct trec_deferred_msg *m = calloc(1, sizeof(*m));

	m->msg_type = TREC_MSG_DEFERRED;
	m->stack_len = stack_len;
	m->mappings_pid = PID;
	m->stack_base = SP - TREC_DEFER_BELOW_SP;
	m->state.pc = pc;
	m->state.sp = SP;
	m->state.text_file_id = pc >= 0x500000 ? FILE_LOADING : FILE_OK;
	m->state.text_offset = pc;
	m->trace.msg_type = TREC_MSG_TRACE;
	m->trace.pid = m->trace.tid = PID;
	m->trace.ktime_ns = T0;
	m->trace.kernel_stack_id = -1;
	for (int i = 0; i < n; i++)
		memcpy(m->stack + TREC_DEFER_BELOW_SP + 16 * i + 8, &ras[i], 8);
	return m;
}

static bool frames_are(const struct trec_trace *t, const uint64_t *addrs, int n, uint32_t err)
{
	if (t->num_frames != n + (err ? 1 : 0))
		return false;
	for (int i = 0; i < n; i++)
		if (t->frames[i].file_id != FILE_OK || t->frames[i].addr_or_line != addrs[i] ||
		    !!(t->frames[i].flags & TREC_FRAME_F_RETURN_ADDRESS) != (i > 0))
			return false;
	return !err || (t->frames[n].flags & TREC_FRAME_F_ERROR && t->frames[n].addr_or_line == err);
}

static void test_walks(struct trecord_counters *cnt)
{
	struct trec_deferred q;
	const uint64_t whole_ras[] = { 0x400201, 0x400801 }, whole[] = { 0x400100, 0x400201, 0x400801 };
	const uint64_t loading_ras[] = { 0x500201 };
	struct trec_deferred_msg *m;

	trec_deferred_init(&q, &fds, NULL, cnt, emit, NULL);
	num_emitted = 0;
	m = make_msg(0x400100, whole_ras, 2, 4096);
	trec_deferred_add(&q, m, trec_deferred_msg_used(m, sizeof(*m)));
	free(m);
	trec_deferred_poll(&q, T0 + 10 * MS, false);
	CHECK("walk: a whole stack is resumed at once, to its STOP rule",
	      num_emitted == 1 && frames_are(&emitted[0], whole, 3, 0));
	CHECK("walk: ... counted as resumed", cnt->v[TRECORD_METRIC_DEFERRED_RESUMED] == 1);

	/* The caller is in a file still loading: the sample waits. */
	num_emitted = 0;
	m = make_msg(0x400100, loading_ras, 1, 4096);
	trec_deferred_add(&q, m, sizeof(*m));
	free(m);
	trec_deferred_poll(&q, T0 + 20 * MS, false);
	CHECK("walk: a caller in a file still loading waits", num_emitted == 0 &&
							      trec_deferred_pending(&q) == 1);
	uint64_t asked = q.memo->hits + q.memo->misses;

	trec_deferred_poll(&q, T0 + 30 * MS, false);
	CHECK("walk: ... and is not walked again while that file loads (no lookup)",
	      num_emitted == 0 && trec_deferred_pending(&q) == 1 &&
		      q.memo->hits + q.memo->misses == asked);
	trec_deferred_poll(&q, T0 + 20 * MS + TREC_DEFERRED_MAX_WAIT_NS, false);
	CHECK("walk: ... until it waited too long: NO_PAGE_INFO (no fp to fall back on)",
	      num_emitted == 1 && trec_deferred_pending(&q) == 0 &&
		      emitted[0].num_frames == 3 && emitted[0].frames[0].addr_or_line == 0x400100 &&
		      emitted[0].frames[1].file_id == FILE_LOADING &&
		      emitted[0].frames[2].addr_or_line == TREC_ERR_NATIVE_NO_PAGE_INFO);
	CHECK("walk: ... counted as expired", cnt->v[TRECORD_METRIC_DEFERRED_EXPIRED] == 1);

	/* A full copy whose second return address lies past its end. */
	num_emitted = 0;
	m = make_msg(0x400100, whole_ras, 1, TREC_DEFER_BELOW_SP + 16);
	trec_deferred_add(&q, m, sizeof(*m));
	trec_deferred_poll(&q, T0 + 40 * MS, true);
	CHECK("walk: a read past a short copy (the top of the stack) stays a read error",
	      num_emitted == 1 && emitted[0].frames[emitted[0].num_frames - 1].addr_or_line ==
					   TREC_ERR_NATIVE_PC_READ);
	num_emitted = 0;
	m->stack_len = TREC_DEFER_STACK_BYTES;
	m->state.sp = m->stack_base + TREC_DEFER_STACK_BYTES - 16;
	m->state.pc = 0x400100;
	memcpy(m->stack + TREC_DEFER_STACK_BYTES - 8, &whole_ras[0], 8);
	trec_deferred_add(&q, m, sizeof(*m));
	free(m);
	trec_deferred_poll(&q, T0 + 60 * MS, true);
	CHECK("walk: a caller past a full copy ends in NATIVE_DEFERRED_STACK_END",
	      num_emitted == 1 && emitted[0].num_frames == 3 &&
		      emitted[0].frames[2].addr_or_line == TREC_ERR_NATIVE_DEFERRED_STACK_END);
	trec_deferred_free(&q);
}

static void test_hostile_and_cap(struct trecord_counters *cnt)
{
	struct trec_deferred q;
	struct trec_deferred_msg *m = make_msg(0x400100, NULL, 0, 4096);
	size_t used = trec_deferred_msg_used(m, sizeof(*m));
	uint64_t bad0 = cnt->v[TRECORD_METRIC_BAD_MESSAGES];

	CHECK("msg: the queued part ends with the copied stack",
	      used == offsetof(struct trec_deferred_msg, stack) + 4096);
	trec_deferred_init(&q, &fds, NULL, cnt, emit, NULL);
	num_emitted = 0;
	trec_deferred_add(&q, m, used - 1);
	trec_deferred_add(&q, m, 16);
	m->stack_len = 0;
	trec_deferred_add(&q, m, sizeof(*m));
	m->stack_len = TREC_DEFER_STACK_BYTES + 8;
	trec_deferred_add(&q, m, sizeof(*m));
	m->stack_len = 4096;
	m->trace.num_frames = TREC_MAX_FRAMES;
	trec_deferred_add(&q, m, sizeof(*m));
	CHECK("msg: short, empty, oversized and overfull messages are refused and counted",
	      num_emitted == 0 && trec_deferred_pending(&q) == 0 &&
		      cnt->v[TRECORD_METRIC_BAD_MESSAGES] == bad0 + 5);

	/* The cap: the sample is written as BPF left it, not lost. */
	m->trace.num_frames = 1;
	m->trace.frames[0] = (struct trec_frame){ .file_id = FILE_OK, .addr_or_line = 0x1234,
						   .kind = TREC_FRAME_NATIVE };
	q.max_pending = 1;
	trec_deferred_add(&q, m, used);
	trec_deferred_add(&q, m, used);
	CHECK("cap: past it the sample is written at once, ending in NO_PAGE_INFO",
	      trec_deferred_pending(&q) == 1 && num_emitted == 1 && emitted[0].num_frames == 2 &&
		      emitted[0].frames[0].addr_or_line == 0x1234 &&
		      emitted[0].frames[1].addr_or_line == TREC_ERR_NATIVE_NO_PAGE_INFO);
	CHECK("cap: ... counted in DEFERRED_DROPPED", cnt->v[TRECORD_METRIC_DEFERRED_DROPPED] == 1);
	trec_deferred_free(&q);
	free(m);
}

#define PID2 4321 /* a process that never gets synced */

/* pid's "synced" marker, as pid_sync writes it last. */
static int set_marker(uint32_t pid, bool on)
{
	struct trec_pid_page_key k = { .prefix_len = 96, .pid_be = htobe32(pid), .page_be = 0 };
	struct trec_pid_page_value v = { 0, 0 };

	return on ? bpf_map_update_elem(fds.maps.lpm, &k, &v, BPF_ANY)
		  : bpf_map_delete_elem(fds.maps.lpm, &k);
}

/* A NO_PID deferral of pid at leaf pc, sampled at t. */
static struct trec_deferred_msg *nopid_msg(uint32_t pid, uint64_t pc, uint64_t t)
{
	const uint64_t ras[] = { 0x400201, 0x400801 };
	struct trec_deferred_msg *m = make_msg(pc, ras, 2, 4096);

	m->flags = TREC_DEFER_F_NO_PID;
	m->mappings_pid = 0;
	m->state.text_file_id = m->state.text_offset = 0; /* BPF resolved nothing */
	m->trace.pid = m->trace.tid = pid;
	m->trace.ktime_ns = t;
	return m;
}

static void add_free(struct trec_deferred *q, struct trec_deferred_msg *m)
{
	trec_deferred_add(q, m, trec_deferred_msg_used(m, sizeof(*m)));
	free(m);
}

/* The trace BPF would have sent: the leaf's raw pc, then NO_PID_INFO. */
static bool leaf_only(const struct trec_trace *t, uint64_t pc)
{
	return t->num_frames == 2 && t->frames[0].file_id == 0 && t->frames[0].addr_or_line == pc &&
	       (t->frames[0].flags & TREC_FRAME_F_ABSOLUTE) &&
	       t->frames[1].addr_or_line == TREC_ERR_NO_PID_INFO;
}

static void test_nopid_hostile(struct trecord_counters *cnt)
{
	struct trec_deferred q;
	struct trec_deferred_msg *m = nopid_msg(PID, 0x400100, T0);
	uint64_t bad0 = cnt->v[TRECORD_METRIC_BAD_MESSAGES];

	trec_deferred_init(&q, &fds, NULL, cnt, emit, NULL);
	num_emitted = 0;
	m->mappings_pid = PID;
	trec_deferred_add(&q, m, sizeof(*m));
	m->mappings_pid = 0;
	m->flags = 6;
	trec_deferred_add(&q, m, sizeof(*m));
	CHECK("nopid msg: a mappings pid or unknown flags: refused and counted",
	      num_emitted == 0 && trec_deferred_pending(&q) == 0 &&
		      cnt->v[TRECORD_METRIC_BAD_MESSAGES] == bad0 + 2);
	/* User frames before the cursor: a leaf in a file known from other
	 * processes (the vdso), the walk deferred at its caller. */
	m->flags = TREC_DEFER_F_NO_PID;
	m->trace.num_frames = 1;
	m->trace.frames[0] = (struct trec_frame){ .addr_or_line = 0xc01, .kind = TREC_FRAME_NATIVE };
	trec_deferred_add(&q, m, sizeof(*m));
	CHECK("nopid msg: user frames before the cursor are accepted",
	      num_emitted == 0 && trec_deferred_pending(&q) == 1 &&
		      cnt->v[TRECORD_METRIC_BAD_MESSAGES] == bad0 + 2);
	trec_deferred_free(&q);
	trec_deferred_init(&q, &fds, NULL, cnt, emit, NULL);
	m->trace.num_frames = 0;
	/* Kernel frames inline (a full stack map) are what BPF sends. */
	m->flags = TREC_DEFER_F_NO_PID;
	m->trace.num_frames = 1;
	m->trace.frames[0] = (struct trec_frame){ .addr_or_line = 0xffffffff81000000ULL,
						   .kind = TREC_FRAME_KERNEL };
	q.max_pending = 0;
	trec_deferred_add(&q, m, sizeof(*m));
	CHECK("nopid cap: past it the sample is written as BPF would have: leaf, NO_PID_INFO",
	      num_emitted == 1 && emitted[0].num_frames == 3 &&
		      emitted[0].frames[0].kind == TREC_FRAME_KERNEL &&
		      emitted[0].frames[1].addr_or_line == 0x400100 &&
		      emitted[0].frames[2].addr_or_line == TREC_ERR_NO_PID_INFO);
	trec_deferred_free(&q);
	free(m);
}

static void test_nopid_walks(struct trecord_counters *cnt)
{
	const uint64_t whole[] = { 0x400100, 0x400201, 0x400801 };
	struct trecord_counters c0 = *cnt;
	struct trec_deferred_msg *m;
	struct trec_deferred q;

	trec_deferred_init(&q, &fds, NULL, cnt, emit, NULL);
	num_emitted = 0;
	add_free(&q, nopid_msg(PID, 0x400100, T0));
	trec_deferred_poll(&q, T0 + 10 * MS, false);
	CHECK("nopid: waits while its pid has no marker", num_emitted == 0 &&
								  trec_deferred_pending(&q) == 1);
	set_marker(PID, true);
	trec_deferred_poll(&q, T0 + 20 * MS, false);
	CHECK("nopid: once synced, walked from the leaf to its STOP rule",
	      num_emitted == 1 && frames_are(&emitted[0], whole, 3, 0) &&
		      cnt->v[TRECORD_METRIC_DEFERRED_RESUMED] == c0.v[TRECORD_METRIC_DEFERRED_RESUMED] + 1);

	/* Deferred at a caller of a leaf whose file BPF knew (the vdso's):
	 * that frame stays first, the walk goes on from the cursor. */
	m = nopid_msg(PID, 0x400100, T0 + 20 * MS);
	m->trace.frames[m->trace.num_frames++] = (struct trec_frame){
		.file_id = 77, .addr_or_line = 0xc01, .kind = TREC_FRAME_NATIVE
	};
	num_emitted = 0;
	add_free(&q, m);
	trec_deferred_poll(&q, T0 + 25 * MS, false);
	CHECK("nopid: deferred past its leaf: the leaf kept, walked on from the cursor",
	      num_emitted == 1 && emitted[0].num_frames == 4 && emitted[0].frames[0].file_id == 77 &&
		      emitted[0].frames[0].addr_or_line == 0xc01 &&
		      emitted[0].frames[1].addr_or_line == whole[0] &&
		      emitted[0].frames[3].addr_or_line == whole[2]);

	/* Synced, its caller's file still loading past the wait: walked on
	 * as BPF would have (NO_PAGE_INFO there), not cut to its leaf. */
	uint64_t loading_ra = 0x500201;

	m = nopid_msg(PID, 0x400100, T0 + 21 * MS);

	memcpy(m->stack + TREC_DEFER_BELOW_SP + 8, &loading_ra, 8);
	num_emitted = 0;
	add_free(&q, m);
	trec_deferred_poll(&q, T0 + 26 * MS, false);
	trec_deferred_poll(&q, T0 + 22 * MS + TREC_DEFERRED_MAX_WAIT_NS, false);
	CHECK("nopid: synced, but a caller's deltas too slow: walked to NO_PAGE_INFO, expired",
	      num_emitted == 1 && emitted[0].num_frames == 3 &&
		      emitted[0].frames[0].file_id == FILE_OK &&
		      emitted[0].frames[1].file_id == FILE_LOADING &&
		      emitted[0].frames[2].addr_or_line == TREC_ERR_NATIVE_NO_PAGE_INFO &&
		      cnt->v[TRECORD_METRIC_DEFERRED_EXPIRED] ==
			      c0.v[TRECORD_METRIC_DEFERRED_EXPIRED] + 1);

	/* Synced, but the process exec'd after the sample: another image. */
	num_emitted = 0;
	add_free(&q, nopid_msg(PID, 0x400100, T0 + 30 * MS));
	trec_deferred_pids_image(q.pids, PID, T0 + 31 * MS);
	trec_deferred_poll(&q, T0 + 40 * MS, false);
	CHECK("nopid: exec'd after the sample: leaf only, counted as stale",
	      num_emitted == 1 && leaf_only(&emitted[0], 0x400100) &&
		      cnt->v[TRECORD_METRIC_DEFERRED_NO_PID_STALE] == 1);
	/* A pc the trie lacks: the maps were read before the sample (a
	 * library mapped since) until a sync that started later is noted. */
	num_emitted = 0;
	add_free(&q, nopid_msg(PID, 0x900000, T0 + 50 * MS));
	trec_deferred_poll(&q, T0 + 60 * MS, false);
	CHECK("nopid: a leaf the trie lacks waits for a sync that read the maps after it",
	      num_emitted == 0 && trec_deferred_pending(&q) == 1);
	trec_deferred_pids_synced(q.pids, PID, T0 + 55 * MS);
	trec_deferred_poll(&q, T0 + 70 * MS, false);
	CHECK("nopid: ... then, still unknown, ends in LOOKUP_TEXT_SECTION",
	      num_emitted == 1 && emitted[0].num_frames == 2 &&
		      emitted[0].frames[0].addr_or_line == 0x900000 &&
		      emitted[0].frames[1].addr_or_line == TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION);

	/* An interpreter's loop at the leaf: native only, and said so. */
	uint64_t file = FILE_OK;
	struct trec_offset_range r = { .lower1 = 0x400000, .upper1 = 0x400200,
				       .program_index = TREC_PROG_UNWIND_PYTHON };
	bpf_map_update_elem(fds.interp, &file, &r, BPF_ANY);
	num_emitted = 0;
	add_free(&q, nopid_msg(PID, 0x400100, T0 + 70 * MS));
	trec_deferred_poll(&q, T0 + 80 * MS, false);
	bpf_map_delete_elem(fds.interp, &file);
	CHECK("nopid: a leaf in an interpreter loop keeps its frame, then DEFERRED_INTERPRETER",
	      num_emitted == 1 && frames_are(&emitted[0], whole, 1,
					     TREC_ERR_NATIVE_DEFERRED_INTERPRETER));

	/* PID2: gone before the sample says nothing; gone after it does. */
	num_emitted = 0;
	trec_deferred_pids_gone(q.pids, PID2, T0 + 90 * MS);
	add_free(&q, nopid_msg(PID2, 0x400100, T0 + 100 * MS));
	add_free(&q, nopid_msg(PID2, 0x400100, T0 + 101 * MS));
	trec_deferred_poll(&q, T0 + 110 * MS, false);
	CHECK("nopid: a pid found gone before the sample: still waits", num_emitted == 0 &&
									 trec_deferred_pending(&q) == 2);
	trec_deferred_pids_gone(q.pids, PID2, T0 + 120 * MS);
	trec_deferred_poll(&q, T0 + 130 * MS, false);
	CHECK("nopid: found gone after the sample: leaf only, counted as gone",
	      num_emitted == 2 && leaf_only(&emitted[0], 0x400100) &&
		      leaf_only(&emitted[1], 0x400100) && trec_deferred_pending(&q) == 0 &&
		      cnt->v[TRECORD_METRIC_DEFERRED_NO_PID_GONE] == 2);

	/* Samples of two unsynced pids, interleaved: one marker lookup per
	 * pid and pass (each a memo miss), not one per sample. */
	uint64_t misses = q.memo->misses;

	num_emitted = 0;
	for (int i = 0; i < 4; i++)
		add_free(&q, nopid_msg(PID2 + 2 + i % 2, 0x400100, T0 + 131 * MS));
	trec_deferred_poll(&q, T0 + 136 * MS, false);
	CHECK("nopid: interleaved unsynced pids: one marker lookup per pid and pass",
	      num_emitted == 0 && trec_deferred_pending(&q) == 4 && q.memo->misses == misses + 2);
	trec_deferred_pids_gone(q.pids, PID2 + 2, T0 + 137 * MS);
	trec_deferred_pids_gone(q.pids, PID2 + 3, T0 + 137 * MS);
	trec_deferred_poll(&q, T0 + 142 * MS, false);
	CHECK("nopid: ... each sample still judged on its own (both pids gone)",
	      num_emitted == 4 && trec_deferred_pending(&q) == 0);

	/* PID2 + 1: never synced, never found gone. */
	num_emitted = 0;
	add_free(&q, nopid_msg(PID2 + 1, 0x400100, T0 + 140 * MS));
	trec_deferred_poll(&q, T0 + 150 * MS, false);
	trec_deferred_poll(&q, T0 + 141 * MS + TREC_DEFERRED_MAX_WAIT_NS, false);
	CHECK("nopid: never synced: leaf only once it waited too long, counted as expired",
	      num_emitted == 1 && leaf_only(&emitted[0], 0x400100) &&
		      cnt->v[TRECORD_METRIC_DEFERRED_EXPIRED] ==
			      c0.v[TRECORD_METRIC_DEFERRED_EXPIRED] + 2);
	num_emitted = 0;
	add_free(&q, nopid_msg(PID2 + 1, 0x400100, T0 + 160 * MS));
	trec_deferred_poll(&q, T0 + 170 * MS, true);
	CHECK("nopid: ... or at the end", num_emitted == 1 && leaf_only(&emitted[0], 0x400100));
	set_marker(PID, false);
	trec_deferred_free(&q);
}

/* The sample a queued message holds. */
static struct trec_deferred_sample sample_of(const struct trec_deferred_msg *m)
{
	return (struct trec_deferred_sample){
		.mappings_pid = m->mappings_pid, .flags = m->flags, .stack_len = m->stack_len,
		.stack_base = m->stack_base, .state = m->state, .stack = m->stack, .trace = &m->trace,
	};
}

/* Walks in one pass share their found lookups; the next pass asks again;
 * whether a file still loads is asked at every walk. */
static void test_memo_walks(void)
{
	const uint64_t whole_ras[] = { 0x400201, 0x400801 }, whole[] = { 0x400100, 0x400201, 0x400801 };
	const uint64_t loading_ras[] = { 0x500201 };
	struct trec_deferred_msg *m = make_msg(0x400100, whole_ras, 2, 4096);
	struct trec_deferred_sample s = sample_of(m);
	struct trec_lookup_memo *memo = trec_lookup_memo_new();
	struct trec_pid_page_key k = { .prefix_len = 32 + 48, .pid_be = htobe32(PID),
				       .page_be = htobe64(0x400000) };
	struct trec_pid_page_value v = { .file_id = FILE_OK + 100,
					 .bias_and_unwinder = (uint64_t)TREC_PROG_UNWIND_NATIVE
							      << TREC_UNWINDER_SHIFT };
	struct trec_trace out;
	size_t len;
	uint64_t hits;

	trec_lookup_memo_new_pass(memo);
	bool first = trec_deferred_walk(&fds, memo, &s, false, &out, &len, NULL) == TREC_DWALK_DONE &&
		     frames_are(&out, whole, 3, 0);

	hits = memo->hits;
	CHECK("memo walk: a walk through the memo resumes the whole stack", first);
	/* The trie now says another file: this pass still has the old answer. */
	bpf_map_update_elem(fds.maps.lpm, &k, &v, BPF_ANY);
	CHECK("memo walk: a second walk in the pass reuses the trie's, pages' and infos' answers",
	      trec_deferred_walk(&fds, memo, &s, false, &out, &len, NULL) == TREC_DWALK_DONE &&
		      frames_are(&out, whole, 3, 0) && memo->hits >= hits + 3);
	trec_lookup_memo_new_pass(memo);
	CHECK("memo walk: the next pass asks the maps again",
	      trec_deferred_walk(&fds, memo, &s, false, &out, &len, NULL) == TREC_DWALK_DONE &&
		      out.num_frames >= 2 && out.frames[1].file_id == FILE_OK + 100);
	v.file_id = FILE_OK;
	bpf_map_update_elem(fds.maps.lpm, &k, &v, BPF_ANY);
	free(m);

	/* A file whose load ends mid-pass: the second walk goes on without it. */
	uint64_t loading = FILE_LOADING;
	uint8_t one = 1;

	m = make_msg(0x400100, loading_ras, 1, 4096);
	s = sample_of(m);
	trec_lookup_memo_new_pass(memo);
	CHECK("memo walk: a caller in a loading file waits",
	      trec_deferred_walk(&fds, memo, &s, false, &out, &len, NULL) == TREC_DWALK_WAIT);
	bpf_map_delete_elem(fds.maps.defer_files, &loading);
	CHECK("memo walk: ... and, its load over in the same pass, is walked on (defer_files "
	      "asked afresh)",
	      trec_deferred_walk(&fds, memo, &s, false, &out, &len, NULL) == TREC_DWALK_DONE &&
		      out.num_frames == 3 && out.frames[1].file_id == FILE_LOADING &&
		      out.frames[2].addr_or_line == TREC_ERR_NATIVE_NO_PAGE_INFO);
	bpf_map_update_elem(fds.maps.defer_files, &loading, &one, BPF_ANY);
	free(m);
	trec_lookup_memo_free(memo);
}

int main(void)
{
	static struct trecord_counters cnt;

	if (make_maps()) {
		printf("SKIP: cannot create BPF maps (%s): root needed\n", strerror(errno));
		return 77;
	}
	test_hostile_and_cap(&cnt);
	test_walks(&cnt);
	test_memo_walks();
	test_nopid_hostile(&cnt);
	test_nopid_walks(&cnt);
	return failures ? 1 : 0;
}
