// SPDX-License-Identifier: MIT
/*
 * The resumed walk (deferred_walk.h): bpf/trec.bpf.c compiled against
 * bpf/testing_shim.h, as the offline harness compiles it, with helpers
 * that read the stack copy and look the real maps up by fd. Only the
 * native steps run here: interpreter unwinders need live memory.
 */
#define TREC_TESTING_OFFLINE 1
#include "testing_shim.h"
#include "trec.bpf.c"

#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "record/unwind/deferred/deferred_walk.h"
#include "record/unwind/deferred/lookup_memo.h"

/* What the helpers see during one walk. */
static struct {
	const struct trec_deferred_walk_fds *fds;
	struct trec_lookup_memo *memo; /* NULL: every lookup asks the map */
	const uint8_t *stack;
	uint64_t base, len;
	uint64_t fault_addr; /* the last read outside the copy */
	struct trec_trace *out;
	size_t out_len;
} W;
static struct trec_per_cpu_record W_rec;
static __u64 W_metrics[TREC_METRIC_COUNT];
/* One value buffer per map: a lookup's result is used before the next
 * lookup in the same map. */
static struct trec_pid_page_value W_lpm;
static struct trec_delta_page_value W_page;
static struct trec_stack_delta_pair W_delta;
static struct trec_unwind_info W_info;
static struct trec_offset_range W_range;
static __u8 W_defer;

static void *lookup_fd(int fd, const void *key, void *value)
{
	union bpf_attr a;

	if (fd < 0)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (__u64)(uintptr_t)key;
	a.value = (__u64)(uintptr_t)value;
	return syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) ? NULL : value;
}

/* lookup_fd through the pass's memo (klen, vlen: the map's sizes). */
static void *lookup_memo_fd(int fd, const void *key, size_t klen, void *value, size_t vlen)
{
	if (fd < 0)
		return NULL;
	if (trec_lookup_memo_get(W.memo, fd, key, klen, value, vlen))
		return value;
	if (!lookup_fd(fd, key, value))
		return NULL;
	trec_lookup_memo_put(W.memo, fd, key, klen, value, vlen);
	return value;
}

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	__u32 idx = *(const __u32 *)key;

	if (map == &per_cpu_records)
		return idx == 0 ? &W_rec : NULL;
	if (map == &metrics)
		return idx < TREC_METRIC_COUNT ? &W_metrics[idx] : NULL;
	if (!W.fds) /* trec_deferred_leaf_only: no map is read */
		return NULL;
	if (map == &pid_page_to_mapping_info)
		return lookup_memo_fd(W.fds->maps.lpm, key, sizeof(struct trec_pid_page_key), &W_lpm,
				      sizeof(W_lpm));
	if (map == &stack_delta_pages)
		return lookup_memo_fd(W.fds->maps.pages, key, sizeof(struct trec_delta_page_key),
				      &W_page, sizeof(W_page));
	if (map == &stack_deltas) {
		if (idx >= TREC_MAX_STACK_DELTAS / 2) /* idx: a pair */
			return NULL;
		const void *mem = W.fds->maps.deltas_mem
					  ? trec_delta_mem_read_at(W.fds->maps.deltas_mem,
								   (size_t)idx * TREC_DELTA_MMAP_STRIDE,
								   TREC_DELTA_MMAP_STRIDE)
					  : NULL;

		return mem ? (void *)mem : lookup_fd(W.fds->maps.deltas, key, &W_delta);
	}
	if (map == &unwind_info_array)
		return lookup_memo_fd(W.fds->maps.infos, key, sizeof(__u32), &W_info, sizeof(W_info));
	if (map == &interpreter_offsets)
		return lookup_memo_fd(W.fds->interp, key, sizeof(__u64), &W_range, sizeof(W_range));
	/* Always asked afresh: a load ending mid-pass takes its file out. */
	if (map == &defer_files)
		return lookup_fd(W.fds->maps.defer_files, key, &W_defer);
	return NULL; /* fork_parents, interpreter state: not used here */
}

/* pid reports, rate limits: the walk asks for nothing. */
static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags)
{
	(void)map, (void)key, (void)value, (void)flags;
	return 0;
}

/* Declared by the shim; forget_pid's, compiled out here. */
__attribute__((unused)) static long bpf_map_delete_elem(void *map, const void *key)
{
	(void)map, (void)key;
	return 0;
}

static long bpf_probe_read_user(void *dst, __u32 size, const void *unsafe_ptr)
{
	uint64_t a = (uint64_t)(uintptr_t)unsafe_ptr;

	if (a >= W.base && size <= W.len && a - W.base <= W.len - size) {
		memcpy(dst, W.stack + (a - W.base), size);
		return 0;
	}
	W.fault_addr = a;
	memset(dst, 0, size);
	return -EFAULT;
}

/* Userspace time is not BPF time: finish_trace's budget charge is moot. */
static __u64 bpf_ktime_get_ns(void)
{
	return 0;
}

static long bpf_tail_call(void *ctx, void *prog_array_map, __u32 index)
{
	(void)ctx, (void)prog_array_map, (void)index;
	return -ENOENT;
}

/* finish_trace's send: the finished trace. */
static long bpf_ringbuf_output(void *ringbuf, void *data, __u64 size, __u64 flags)
{
	(void)ringbuf, (void)flags;
	if (size > sizeof(*W.out))
		return -EINVAL;
	memcpy(W.out, data, size);
	W.out_len = size;
	return 0;
}
/* A read error past the copy: the stack went on beyond what was copied. */
static bool beyond_copy(const struct trec_unwind_state *st)
{
	switch (st->unwind_error) {
	case TREC_ERR_NATIVE_PC_READ:
	case TREC_ERR_NATIVE_CFA_READ:
	case TREC_ERR_NATIVE_FP_READ:
	case TREC_ERR_NATIVE_SIGNAL_FRAME_READ:
	case TREC_ERR_FP_RECORD_READ:
		break;
	default:
		return false;
	}
	/* Below the copy: another stack (sigaltstack). Above a full copy:
	 * more stack. Above a short one: the top of the stack, a real error
	 * (as it would have been in BPF). */
	return W.fault_addr < W.base ||
	       (W.len == TREC_DEFER_STACK_BYTES && W.fault_addr >= W.base + W.len);
}

/* The walk's record: the trace and cursor as BPF sent them. */
static void walk_begin(const struct trec_deferred_walk_fds *fds, struct trec_lookup_memo *memo,
		       const struct trec_deferred_sample *s, struct trec_trace *out)
{
	struct trec_per_cpu_record *rec = &W_rec;
	struct trec_unwind_state *st = &rec->state;

	memset(&W, 0, sizeof(W));
	W.fds = fds;
	W.memo = memo;
	W.stack = s->stack;
	W.base = s->stack_base;
	W.len = s->stack_len;
	W.out = out;
	memset(rec, 0, sizeof(*rec));
	memcpy(&rec->trace, s->trace,
	       TREC_TRACE_HEADER_SIZE + s->trace->num_frames * sizeof(struct trec_frame));
	*st = s->state;
	/* The maps changed since BPF's memos and window: start afresh. */
	st->memo_text_page = st->memo_delta_file = st->memo_page_file = 0;
	st->memo_no_interp = 0;
	st->win_base = 0;
	st->defer_pending = st->deferred = st->defer_refused = 0;
	/* Sent whole: only the ring's traces are trace deltas' bases. */
	st->delta_base = 0;
	st->replay_at = 0;
	st->unwind_error = TREC_ERR_OK;
	st->error_metric = -1;
	st->native_frames = 0;
	rec->mappings_pid = s->mappings_pid ? s->mappings_pid : rec->trace.pid;
}

void trec_deferred_leaf_only(const struct trec_deferred_sample *s, uint32_t err,
			     struct trec_trace *out, size_t *out_len)
{
	walk_begin(NULL, NULL, s, out);
	push_absolute_frame(&W_rec, W_rec.state.pc);
	set_error(&W_rec.state, err, -1);
	finish_trace(&W_rec);
	*out_len = W.out_len;
}

/*
 * A NO_PID deferral starts where BPF would have gone on, now that the pid
 * is synced: the cursor's lookup (the leaf's, or a caller's). The next
 * program, or STOP with the trace's end set (a pc the sync did not see
 * either).
 */
static int resume_at_leaf(struct trec_per_cpu_record *rec)
{
	struct trec_unwind_state *st = &rec->state;
	int mapped = resolve_text(st, rec->mappings_pid, st->pc);
	int next;

	if (mapped < 0) {
		push_absolute_frame(rec, st->pc);
		set_error(st, TREC_ERR_NATIVE_LOOKUP_TEXT_SECTION, -1);
		return TREC_PROG_UNWIND_STOP;
	}
	next = next_unwinder(rec, mapped);
	/* An interpreter's loop at the leaf: keep its native frame. */
	if (next != TREC_PROG_UNWIND_NATIVE)
		push_native_frame(rec);
	return next;
}

enum trec_deferred_walk_result trec_deferred_walk(const struct trec_deferred_walk_fds *fds,
						  struct trec_lookup_memo *memo,
						  const struct trec_deferred_sample *s, bool final,
						  struct trec_trace *out, size_t *out_len,
						  uint64_t *wait_file)
{
	struct trec_per_cpu_record *rec = &W_rec;
	struct trec_unwind_state *st = &rec->state;
	int next = TREC_PROG_UNWIND_NATIVE;

	walk_begin(fds, memo, s, out);
	if (s->flags & TREC_DEFER_F_NO_PID) {
		if (!pid_is_synced(rec->mappings_pid, NULL))
			return TREC_DWALK_UNSYNCED;
		next = resume_at_leaf(rec);
	}
	defer_enabled = !final;

	for (int i = 0; i < TREC_MAX_FRAMES && next == TREC_PROG_UNWIND_NATIVE; i++)
		next = unwind_native_step(NULL, rec);
	if (st->deferred) {
		if (wait_file) /* the file defer_wanted found loading */
			*wait_file = st->text_file_id;
		return TREC_DWALK_WAIT;
	}
	if (st->unwind_error == TREC_ERR_OK && next != TREC_PROG_UNWIND_STOP &&
	    next != TREC_PROG_UNWIND_NATIVE)
		set_error(st, TREC_ERR_NATIVE_DEFERRED_INTERPRETER, -1);
	else if (beyond_copy(st))
		st->unwind_error = TREC_ERR_NATIVE_DEFERRED_STACK_END;
	finish_trace(rec);
	*out_len = W.out_len;
	return TREC_DWALK_DONE;
}

bool trec_deferred_file_loading(const struct trec_deferred_walk_fds *fds, uint64_t file_id)
{
	uint8_t v;

	return lookup_fd(fds->maps.defer_files, &file_id, &v) != NULL;
}
