// SPDX-License-Identifier: MIT
/* jitdump parser (jitdump.h). */
#include "record/jit/jitdump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/containers/u64map.h"

#define WINDOW_BYTES (1u << 20)
#define PREFIX 16u
#define LOAD_FIXED 56u     /* prefix + pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_FIXED 64u
#define DEBUG_FIXED 32u    /* prefix + code_addr, nr_entry */
#define DEBUG_ENTRY_MIN 17u /* addr, lineno, discrim, at least the NUL of the name */
#define NAME_SCAN (64u << 10)       /* a name's NUL must be in its first 64 KiB */
#define MAX_DEBUG_BYTES (16u << 20) /* rows of one code load */
#define MAX_PENDING_ROWS (1u << 16)

/* The input: a memory buffer, or a file read through a window. */
struct src {
	int fd;
	const uint8_t *mem;
	uint64_t size; /* a file's size when the parse started: later appends are not read */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len, win_cap;
	int err;
};

/* n bytes at off, or NULL if the input ends before them (or a read failed). */
static const uint8_t *get(struct src *s, uint64_t off, size_t n)
{
	size_t want, got = 0;

	if (off > s->size || n > s->size - off)
		return NULL;
	if (s->mem)
		return s->mem + off;
	if (off >= s->win_off && off - s->win_off + n <= s->win_len)
		return s->win + (off - s->win_off);
	want = n > WINDOW_BYTES ? n : WINDOW_BYTES;
	if (want > s->size - off)
		want = (size_t)(s->size - off);
	if (want > s->win_cap) {
		uint8_t *w = realloc(s->win, want);

		if (!w) {
			s->err = -ENOMEM;
			return NULL;
		}
		s->win = w;
		s->win_cap = want;
	}
	while (got < want) {
		ssize_t r = pread(s->fd, s->win + got, want - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			s->err = -errno;
		if (r <= 0)
			break; /* the file shrank, or failed: what was read is what there is */
		got += (size_t)r;
	}
	s->win_off = off;
	s->win_len = got;
	return got >= n ? s->win : NULL;
}

struct row {
	uint64_t addr;
	uint32_t line, file;
};

struct jd {
	struct src in;
	struct trec_jit_table *t;
	const struct trec_jit_filter *filter;
	bool swap, no_time;
	struct trec_u64map live; /* code_index -> index + 1 of its entry */
	struct row *pending;     /* rows of the next CODE_LOAD */
	uint32_t npending, cappending;
	uint64_t pending_addr;   /* the code they say they describe */
	uint64_t pending_off;    /* their record, for messages */
	uint32_t closed_upto;    /* entries before this one were ended by a CODE_CLOSE */
	int err;                 /* -ENOMEM */
};

static uint32_t rd32(const struct jd *d, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct jd *d, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return d->swap ? __builtin_bswap64(v) : v;
}

static void set_err(struct jd *d, int64_t r)
{
	if (r == -ENOMEM)
		d->err = -ENOMEM;
}

static void code_load(struct jd *d, uint64_t off, uint32_t size, uint64_t ts)
{
	const uint8_t *p = get(&d->in, off, LOAD_FIXED), *name, *nul;
	uint32_t nrows = d->npending;
	uint64_t addr, csize, index, area;
	int64_t idx;

	d->npending = 0; /* the rows were this load's, whatever becomes of it */

	if (!p || size < LOAD_FIXED + 1) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_LOAD of %u bytes",
				   (unsigned long long)off, size);
		return;
	}
	addr = rd64(d, p + 32);
	csize = rd64(d, p + 40);
	index = rd64(d, p + 48);
	/* the code is the last code_size bytes; the name comes before it */
	if (csize > size - LOAD_FIXED - 1 || csize > UINT64_MAX - addr) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_LOAD code size %llu over its record",
				   (unsigned long long)off, (unsigned long long)csize);
		return;
	}
	area = size - LOAD_FIXED - csize;
	if (area > NAME_SCAN)
		area = NAME_SCAN;
	name = get(&d->in, off + LOAD_FIXED, (size_t)area);
	nul = name ? memchr(name, 0, (size_t)area) : NULL;
	if (!nul) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_LOAD name without its NUL",
				   (unsigned long long)off);
		return;
	}
	/* rows of other code, or outside this code, are a writer's mistake
	 * (Node 20's V8 writes freed bytes as file names, which throws the
	 * packed rows out of step): none of them can be trusted */
	for (uint32_t i = 0; i < nrows; i++) {
		if (d->pending_addr != addr || d->pending[i].addr - addr >= csize) {
			trec_jit_table_bad(d->t, "offset %llu: CODE_DEBUG_INFO rows outside the code "
					   "of the CODE_LOAD at offset %llu",
					   (unsigned long long)d->pending_off, (unsigned long long)off);
			nrows = 0;
		}
	}
	if (!csize || !trec_jit_filter_covers(d->filter, addr, csize))
		return;
	idx = trec_jit_table_add(d->t, addr, csize, d->no_time ? 0 : ts, index,
				 (const char *)name, (size_t)(nul - name));
	if (idx < 0) {
		set_err(d, idx);
		return;
	}
	for (uint32_t i = 0; i < nrows; i++) {
		int r = trec_jit_table_add_line(d->t, d->pending[i].addr, d->pending[i].line,
						d->pending[i].file);
		if (r == -ENOMEM) {
			set_err(d, r);
			return;
		}
		if (r)
			break; /* max_lines: the entry keeps the rows it has */
	}
	trec_jit_table_sort_lines(d->t, (uint32_t)idx);
	trec_u64map_put(&d->live, index, (void *)(uintptr_t)(idx + 1), &d->err);
}

/* Ends an entry at ts: not in force from then on. */
static void end_entry(struct trec_jit_entry *e, uint64_t ts)
{
	e->end_ns = ts > e->load_ns ? ts : e->load_ns;
	/* JITSYMS stores end - load + 1: a lifetime of 2^64 - 1 ns would not
	 * fit (a load at 0 closed at the last ns; fuzzing found it). */
	if (e->end_ns - e->load_ns == UINT64_MAX)
		e->end_ns--;
}

static void code_move(struct jd *d, uint64_t off, uint32_t size, uint64_t ts)
{
	const uint8_t *p = get(&d->in, off, MOVE_FIXED);
	uint64_t naddr, csize, index, shift;
	struct trec_jit_entry old;
	int64_t idx;
	void *v;

	if (!p || size < MOVE_FIXED) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_MOVE of %u bytes",
				   (unsigned long long)off, size);
		return;
	}
	naddr = rd64(d, p + 40);
	csize = rd64(d, p + 48);
	index = rd64(d, p + 56);
	if (csize > UINT64_MAX - naddr) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_MOVE range past 2^64",
				   (unsigned long long)off);
		return;
	}
	/* a load the filter dropped (or never seen) has nothing to move */
	if (!(v = trec_u64map_get(&d->live, index)))
		return;
	old = d->t->entries[(uintptr_t)v - 1];
	if (!d->no_time && ts)
		end_entry(&d->t->entries[(uintptr_t)v - 1], ts);
	trec_u64map_del(&d->live, index);
	if (!csize || !trec_jit_filter_covers(d->filter, naddr, csize))
		return;
	idx = trec_jit_table_add_moved(d->t, naddr, csize, d->no_time ? 0 : ts, index, old.name);
	if (idx < 0) {
		set_err(d, idx);
		return;
	}
	shift = naddr - old.start; /* rows move with their code (mod 2^64) */
	for (uint32_t k = 0; k < old.num_lines; k++) {
		struct trec_jit_line r = d->t->lines[old.first_line + k];
		int err = trec_jit_table_add_line(d->t, r.addr + shift, r.line, r.file);

		if (err == -ENOMEM) {
			set_err(d, err);
			return;
		}
		if (err)
			break;
	}
	trec_u64map_put(&d->live, index, (void *)(uintptr_t)(idx + 1), &d->err);
}

/* Bytes no file name has: the sign of rows read out of step. */
static bool has_control(const uint8_t *p, const uint8_t *end)
{
	for (; p < end; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

static void debug_info(struct jd *d, uint64_t off, uint32_t size)
{
	const uint8_t *p = get(&d->in, off, DEBUG_FIXED), *b;
	uint64_t nr, left;
	int64_t prev = -1;

	d->npending = 0; /* a newer one replaces rows no load took, as in perf */
	if (!p || size < DEBUG_FIXED || size - DEBUG_FIXED > MAX_DEBUG_BYTES) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_DEBUG_INFO of %u bytes",
				   (unsigned long long)off, size);
		return;
	}
	d->pending_addr = rd64(d, p + 16);
	d->pending_off = off;
	nr = rd64(d, p + 24);
	left = size - DEBUG_FIXED;
	if (nr > left / DEBUG_ENTRY_MIN || !(b = get(&d->in, off + DEBUG_FIXED, (size_t)left))) {
		trec_jit_table_bad(d->t, "offset %llu: CODE_DEBUG_INFO of %llu rows in %llu bytes",
				   (unsigned long long)off, (unsigned long long)nr,
				   (unsigned long long)left);
		return;
	}
	/* entries are packed: each ends with its name's NUL */
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *nul = left > 16 ? memchr(b + 16, 0, (size_t)(left - 16)) : NULL;
		int32_t line;
		int64_t file;

		if (!nul) {
			trec_jit_table_bad(d->t, "offset %llu: CODE_DEBUG_INFO row %llu cut short",
					   (unsigned long long)off, (unsigned long long)i);
			d->npending = 0;
			return;
		}
		line = (int32_t)rd32(d, b + 8);
		if (has_control(b + 16, nul)) {
			trec_jit_table_bad(d->t, "offset %llu: CODE_DEBUG_INFO row %llu file name has "
					   "control bytes", (unsigned long long)off, (unsigned long long)i);
			d->npending = 0;
			return;
		}
		/* "\xff" is "the previous row's file" */
		if (nul - b == 17 && b[16] == 0xff && prev >= 0)
			file = prev;
		else if ((file = trec_jit_table_file(d->t, (const char *)b + 16,
						    (size_t)(nul - b - 16))) < 0) {
			set_err(d, file);
			return;
		}
		prev = file;
		if (d->npending < MAX_PENDING_ROWS) {
			if (d->npending == d->cappending) {
				uint32_t cap = d->cappending ? d->cappending * 2 : 64;
				struct row *r = realloc(d->pending, cap * sizeof(*r));

				if (!r) {
					set_err(d, -ENOMEM);
					return;
				}
				d->pending = r;
				d->cappending = cap;
			}
			d->pending[d->npending++] = (struct row){ rd64(d, b),
				line > 0 ? (uint32_t)line : 0, (uint32_t)file };
		}
		left -= (uint64_t)(nul + 1 - b);
		b = nul + 1;
	}
}

static void code_close(struct jd *d, uint64_t ts)
{
	if (d->no_time || !ts)
		return; /* without times, nothing can say what ran before the close */
	for (uint32_t i = d->closed_upto; i < d->t->n; i++)
		if (!d->t->entries[i].end_ns)
			end_entry(&d->t->entries[i], ts);
	d->closed_upto = d->t->n;
}

static int header(struct jd *d, uint64_t *first)
{
	const uint8_t *h = get(&d->in, 0, TREC_JITDUMP_HEADER_SIZE);
	uint32_t magic, hsize;
	uint64_t flags;

	if (!h) {
		snprintf(d->t->why, sizeof(d->t->why), "shorter than a jitdump header");
		return d->in.err ? d->in.err : -EINVAL;
	}
	memcpy(&magic, h, 4);
	if (magic != TREC_JITDUMP_MAGIC && magic != __builtin_bswap32(TREC_JITDUMP_MAGIC)) {
		snprintf(d->t->why, sizeof(d->t->why), "bad magic 0x%08x", magic);
		return -EINVAL;
	}
	d->swap = magic != TREC_JITDUMP_MAGIC;
	hsize = rd32(d, h + 8);
	flags = rd64(d, h + 32);
	if (hsize < TREC_JITDUMP_HEADER_SIZE || hsize > d->in.size) {
		snprintf(d->t->why, sizeof(d->t->why), "header size %u", hsize);
		return -EINVAL;
	}
	/* like perf: a flag this reader does not know may change the meaning */
	if (flags & ~TREC_JITDUMP_FLAG_ARCH_TIMESTAMP) {
		snprintf(d->t->why, sizeof(d->t->why), "unsupported flags 0x%llx",
			 (unsigned long long)flags);
		return -EINVAL;
	}
	/* TSC times cannot be placed on CLOCK_MONOTONIC here */
	d->no_time = flags & TREC_JITDUMP_FLAG_ARCH_TIMESTAMP;
	if (d->no_time)
		d->t->flags |= TREC_JIT_F_NO_TIME;
	*first = hsize; /* a longer header has fields this reader skips */
	return 0;
}

static int parse(struct jd *d)
{
	uint64_t off;
	int err = header(d, &off);

	while (!err && !d->err && off < d->in.size) {
		const uint8_t *p = get(&d->in, off, PREFIX);
		uint32_t id, size;
		uint64_t ts;

		if (!p)
			break; /* a prefix cut short: the writer is still writing */
		id = rd32(d, p);
		size = rd32(d, p + 4);
		ts = rd64(d, p + 8);
		if (size < PREFIX) {
			/* no way to the next record */
			trec_jit_table_bad(d->t, "offset %llu: record size %u",
					   (unsigned long long)off, size);
			break;
		}
		if (size > d->in.size - off)
			break; /* cut short, as above */
		if (off + size > d->t->lim.max_file_bytes) {
			d->t->flags |= TREC_JIT_F_TRUNCATED;
			break;
		}
		if (id == TREC_JITDUMP_CODE_LOAD)
			code_load(d, off, size, ts);
		else if (id == TREC_JITDUMP_CODE_MOVE)
			code_move(d, off, size, ts);
		else if (id == TREC_JITDUMP_CODE_DEBUG_INFO)
			debug_info(d, off, size);
		else if (id == TREC_JITDUMP_CODE_CLOSE)
			code_close(d, ts);
		/* UNWINDING_INFO and unknown ids: skipped by their size */
		if ((d->t->flags & TREC_JIT_F_TRUNCATED) && d->t->n >= d->t->lim.max_entries)
			break;
		off += size;
	}
	if (!err)
		err = d->err ? d->err : d->in.err;
	free(d->pending);
	free(d->in.win);
	trec_u64map_free(&d->live);
	return err;
}

int trec_jitdump_parse_mem(const uint8_t *buf, size_t n, const struct trec_jit_filter *filter,
			   struct trec_jit_table *t)
{
	struct jd d = { .in = { .fd = -1, .mem = buf ? buf : (const uint8_t *)"", .size = buf ? n : 0 },
			.t = t, .filter = filter };

	return parse(&d);
}

int trec_jitdump_parse_fd(int fd, const struct trec_jit_filter *filter, struct trec_jit_table *t)
{
	struct jd d = { .in = { .fd = fd }, .t = t, .filter = filter };
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	d.in.size = (uint64_t)st.st_size;
	return parse(&d);
}

long trec_jitdump_marker_pid(const char *path)
{
	const char *b = strrchr(path, '/');
	char *end;
	unsigned long n;

	if (!b || strncmp(b, "/jit-", 5) || b[5] < '0' || b[5] > '9')
		return -1;
	n = strtoul(b + 5, &end, 10);
	return strcmp(end, ".dump") || n > UINT32_MAX ? -1 : (long)n;
}
