// SPDX-License-Identifier: MIT
/*
 * The BPF program as userspace C: bpf/trec.bpf.c compiled against
 * bpf/testing_shim.h, and the helper definitions the shim declares.
 *  - maps: bpf_map_lookup_elem dispatches on the map's address; the delta
 *    maps read the fake sink the real delta store wrote, the LPM trie is
 *    harness_lpm.c;
 *  - bpf_probe_read_user reads the captured memory (the stack, or a core
 *    dump); the Python unwinder's thread pointer is the captured fs base;
 *  - bpf_tail_call longjmps back to harness_unwind, which runs the program
 *    in the slot (the kernel's "never returns"), up to the kernel's 33;
 *  - bpf_ringbuf_output copies the trace out.
 */
#define TREC_TESTING_OFFLINE 1
#include "testing_shim.h"
#include <stdint.h>
static uint64_t sampled_fs_base;
#define TREC_PY_FSBASE() (sampled_fs_base)
#define TREC_PERL_FSBASE() (sampled_fs_base)
#include "trec.bpf.c"

#include <endian.h>
#include <stdlib.h>
#include <errno.h>
#include <setjmp.h>
#include <time.h>
#include "harness.h"
#include "../unit/fake_delta_sink.h"
#include "record/io/trace_delta.h"

#define KERNEL_MAX_TAIL_CALLS 33

static struct harness_env *env;
static struct trec_per_cpu_record record;
/* One CPU's delta_rule_cache: kept from one unwind to the next, as the
 * real map is, until harness_forget_caches (a new recording). */
static struct trec_delta_cache_set delta_cache[TREC_DELTA_CACHE_SETS];
/* One CPU's stack replay logs (bpf/stack_replay.h), kept likewise. */
static struct trec_replay_log replay_log_slots[2];
/* One CPU's text_page_cache, kept likewise. */
static struct trec_text_cache_slot text_cache[TREC_TEXT_CACHE_SETS];
static jmp_buf tail_call_jmp;

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	uint32_t idx = *(const uint32_t *)key;

	if (map == &per_cpu_records)
		return idx == 0 ? &record : NULL;
	if (map == &metrics)
		return idx < TREC_METRIC_COUNT ? &env->metrics[idx] : NULL;
	if (map == &pid_page_to_mapping_info)
		return harness_lpm_lookup(env, key);
	if (map == &stack_delta_pages) {
		struct fake_page *p = fake_page_find(env->sink, key, 0);
		return p ? &p->v : NULL;
	}
	if (map == &stack_deltas) /* idx: a pair of the deltas' array */
		return (uint64_t)idx * 2 + 1 < env->sink->max_deltas ? &env->sink->deltas[idx * 2]
								     : NULL;
	if (map == &unwind_info_array)
		return idx < TREC_MAX_UNWIND_INFOS ? &env->sink->infos[idx] : NULL;
	if (map == &delta_rule_cache)
		return idx < TREC_DELTA_CACHE_SETS ? &delta_cache[idx] : NULL;
	if (map == &text_page_cache)
		return idx < TREC_TEXT_CACHE_SETS ? &text_cache[idx] : NULL;
	if (map == &replay_logs)
		return idx < 2 ? &replay_log_slots[idx] : NULL;
	if (map == &interpreter_offsets) {
		for (size_t i = 0; i < env->num_py_ranges; i++)
			if (env->py_ranges[i].file_id == *(const uint64_t *)key)
				return &env->py_ranges[i].r;
		return NULL;
	}
	if (map == &py_procs) {
		for (size_t i = 0; i < env->num_py_procs; i++)
			if (env->py_procs[i].pid == idx)
				return &env->py_procs[i].info;
		return NULL;
	}
	if (map == &php_procs) {
		for (size_t i = 0; i < env->num_php_procs; i++)
			if (env->php_procs[i].pid == idx)
				return &env->php_procs[i].info;
		return NULL;
	}
	if (map == &py_scratch) {
		static struct trec_py_scratch py_scratch_value;
		return idx == 0 ? &py_scratch_value : NULL;
	}
	if (map == &perl_procs)
		return env->have_perl && env->perl_pid == idx ? &env->perl_info : NULL;
	if (map == &ruby_procs) {
		for (size_t i = 0; i < env->num_rb_procs; i++)
			if (env->rb_procs[i].pid == idx)
				return &env->rb_procs[i].info;
		return NULL;
	}
	/* reported_pids, ...: empty here. */
	return NULL;
}

static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return 0; /* pid reports and rate limits: accepted, nothing to keep */
}

static long bpf_map_delete_elem(void *map, const void *key)
{
	(void)map, (void)key;
	return 0;
}

int harness_read(const struct harness_env *e, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	size_t done = 0;

	while (done < len) {
		const struct harness_mem *m = NULL;
		uint64_t a = addr + done;
		for (size_t i = 0; i < e->num_mem && !m; i++)
			if (a >= e->mem[i].start && a - e->mem[i].start < e->mem[i].len)
				m = &e->mem[i];
		if (!m)
			return -EFAULT;
		size_t n = m->len - (a - m->start);
		n = n < len - done ? n : len - done;
		memcpy(out + done, m->bytes + (a - m->start), n);
		done += n;
	}
	return 0;
}

static long bpf_probe_read_user(void *dst, __u32 size, const void *unsafe_ptr)
{
	if (harness_read(env, (uint64_t)(uintptr_t)unsafe_ptr, dst, size) == 0)
		return 0;
	env->memory_faults++;
	memset(dst, 0, size); /* like the kernel helper on a fault */
	return -EFAULT;
}

static __u64 bpf_ktime_get_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static long bpf_tail_call(void *ctx, void *prog_array_map, __u32 index)
{
	(void)ctx;
	if (prog_array_map != &unwinder_progs || index >= TREC_PROG_COUNT ||
	    env->tail_calls >= KERNEL_MAX_TAIL_CALLS)
		return -ENOENT; /* an empty slot, or the kernel's limit */
	env->tail_calls++;
	longjmp(tail_call_jmp, (int)index + 1);
}

/* trecord's side of trace deltas (record/io/trace_delta.c): what the
 * writer thread keeps per CPU, and the next message's fate. */
static struct trec_trace_bases bases;
static struct trec_trace rebuilt;
static bool ring_full_next, lose_next;

/* Copies the trace out, made whole as trecord makes it; seq (a count of
 * sends) is zeroed so that traces compare by their stacks. */
static long bpf_ringbuf_output(void *ringbuf, void *data, __u64 size, __u64 flags)
{
	enum trec_delta_result res = TREC_DELTA_WHOLE;
	const struct trec_trace *whole = data;
	size_t n = size;

	(void)flags;
	if (ringbuf != &trace_events || size > sizeof(env->trace))
		return -EINVAL;
	if (ring_full_next) {
		ring_full_next = false;
		return -ENOSPC;
	}
	env->traces_sent++;
	if (lose_next)
		lose_next = false; /* sent, never seen by trecord: not applied */
	else
		res = trec_trace_delta_apply(&bases, data, size, &rebuilt, &whole, &n, NULL);
	env->delta_result = res;
	memset(&env->trace, 0, sizeof(env->trace));
	if (res == TREC_DELTA_BAD)
		n = 0;
	memcpy(&env->trace, whole, n);
	env->trace.seq = 0;
	return 0;
}

void harness_ring_full_next(void)
{
	ring_full_next = true;
}

void harness_lose_next(void)
{
	lose_next = true;
}

struct trec_trace *harness_delta_base(void)
{
	return trec_trace_base(&bases, 0);
}



void harness_forget_caches(void)
{
	memset(delta_cache, 0, sizeof(delta_cache));
	memset(text_cache, 0, sizeof(text_cache));
	harness_forget_replay();
}

void harness_forget_replay(void)
{
	memset(replay_log_slots, 0, sizeof(replay_log_slots));
	record.replay_valid = 0;
	record.replay_misses = record.replay_try = record.replay_hit = record.replay_phase = 0;
	/* A new recording: trecord has no base yet, and the sends' count
	 * starts again (the periodic whole traces fall at the same samples). */
	record.last_sent = 0;
	record.trace_seq = 0;
	trec_trace_bases_free(&bases);
}

size_t harness_replay_words(uint64_t *addrs, size_t max)
{
	const struct trec_replay_log *log = &replay_log_slots[record.replay_log & 1];
	uint32_t first = log->cur[1].words, n = log->num_words, mid;
	size_t k = 0;

	if (!record.replay_valid || log->num_cursors < 1 || first >= n || n > TREC_REPLAY_WORDS ||
	    !max)
		return 0;
	/* The replay check reads the first word of a call through the stack
	 * window, the others in the window as it is: the first, the last, the
	 * middle, and each that leaves its predecessor's page (where a call
	 * ends and the next begins: stack_replay.h). */
	mid = first + (n - first) / 2;
	addrs[k++] = log->words[first].addr;
	if (n - 1 > first && k < max)
		addrs[k++] = log->words[n - 1].addr;
	if (mid > first && mid < n - 1 && k < max)
		addrs[k++] = log->words[mid].addr;
	for (uint32_t w = first + 1; w < n - 1 && k < max; w++)
		if (log->words[w].addr >> 12 != log->words[w - 1].addr >> 12 ||
		    log->words[w].addr < log->words[w - 1].addr)
			addrs[k++] = log->words[w].addr;
	return k;
}

uint64_t harness_replay_top(void)
{
	const struct trec_replay_log *log = &replay_log_slots[record.replay_log & 1];
	uint64_t top = 0;

	if (!record.replay_valid || log->num_words > TREC_REPLAY_WORDS)
		return 0;
	for (uint32_t w = 0; w < log->num_words; w++)
		if (log->words[w].addr + 8 > top)
			top = log->words[w].addr + 8;
	return top;
}

_Static_assert(HARNESS_REPLAY_PAGES >= TREC_REPLAY_PAGES, "the harness lists every page");

size_t harness_replay_pages(uint32_t *pid, uint64_t *pcs, bool *early, size_t max)
{
	const struct trec_replay_log *log = &replay_log_slots[record.replay_log & 1];
	size_t n = 0;

	if (!record.replay_valid || log->num_pages > TREC_REPLAY_PAGES)
		return 0;
	*pid = log->pid;
	for (uint32_t i = 0; i < log->num_pages && n < max; i++, n++) {
		pcs[n] = log->pages[i].page << 12;
		early[n] = false;
		for (uint32_t j = 0; j <= TREC_REPLAY_CURSORS && j < log->num_pages; j++)
			early[n] |= log->pages[j].page == log->pages[i].page;
	}
	return n;
}

void harness_maps_changed(void)
{
	trec_maps_gen++;
}

int harness_unwind(struct harness_env *e, const struct harness_regs *r, uint32_t pid,
		   uint32_t tid)
{
	env = e;
	e->traces_sent = 0;
	e->tail_calls = 0;
	trace_reset(&record);
	record.trace.pid = pid;
	record.trace.tid = tid;
	struct trec_unwind_state *st = &record.state;
	st->pc = r->rip;
	st->sp = r->rsp;
	st->fp = r->rbp;
	st->rax = r->rax;
	st->r9 = r->r9;
	st->r11 = r->r11;
	st->r15 = r->r15;
#if defined(__TARGET_ARCH_arm64)
	st->lr = r->lr; /* the leaf's return address, until it saves it */
	st->lr_valid = 1;
#endif
	sampled_fs_base = r->fs_base;

	int slot = setjmp(tail_call_jmp);
	if (slot == 0)
		collect_trace(NULL, &record);
	else if (slot - 1 == TREC_PROG_UNWIND_NATIVE)
		trec_unwind_native(NULL);
	else if (slot - 1 == TREC_PROG_UNWIND_STOP)
		trec_unwind_stop(NULL);
	else if (slot - 1 == TREC_PROG_UNWIND_PYTHON)
		trec_unwind_python(NULL);
	else if (slot - 1 == TREC_PROG_UNWIND_PHP)
		trec_unwind_php(NULL);
	else if (slot - 1 == TREC_PROG_UNWIND_PERL)
		trec_unwind_perl(NULL);
	else if (slot - 1 == TREC_PROG_UNWIND_RUBY)
		trec_unwind_ruby(NULL);
	return e->traces_sent == 1 ? 0 : -1;
}

int harness_stack_delta(struct harness_env *e, uint64_t file_id, uint64_t vaddr, uint16_t *info)
{
	struct trec_unwind_state st;

	env = e;
	memset(&st, 0, sizeof(st));
	st.error_metric = -1;
	st.text_file_id = file_id;
	st.text_offset = vaddr;
	switch (get_stack_delta(&st, info)) {
	case 0:
		return 0;
	case TREC_DELTA_NO_PAGE: /* the unwinder's error when no fallback applies */
		return TREC_ERR_NATIVE_NO_PAGE_INFO;
	default:
		return (int)st.unwind_error;
	}
}
