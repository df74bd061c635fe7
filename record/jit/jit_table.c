// SPDX-License-Identifier: MIT
/* JIT symbol tables: storage, limits and JITSYMS emission (jit_table.h). */
#include "record/jit/jit_table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "format/dedup.h"

#define BLOCK_BYTES (64u << 10)

bool trec_jit_filter_covers(const struct trec_jit_filter *f, uint64_t start, uint64_t size)
{
	size_t lo = 0, hi;

	if (!f)
		return true;
	/* the first pc >= start: is it below the end? */
	hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->pcs[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->pcs[lo] - start < size;
}

void trec_jit_table_init(struct trec_jit_table *t, const struct trec_jit_limits *lim)
{
	memset(t, 0, sizeof(*t));
	t->lim = lim ? *lim : TREC_JIT_LIMITS_DEFAULT;
}

void trec_jit_table_free(struct trec_jit_table *t)
{
	for (size_t i = 0; i < t->nblocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->entries);
	free(t->lines);
	free(t->files);
	trec_itab_free(&t->file_index);
	memset(t, 0, sizeof(*t));
}

void trec_jit_table_bad(struct trec_jit_table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

/* A NUL-terminated copy of len bytes; NULL on -ENOMEM. */
static const char *store(struct trec_jit_table *t, const char *s, size_t len)
{
	char *d;

	if (len + 1 > t->left) {
		size_t sz = len + 1 > BLOCK_BYTES ? len + 1 : BLOCK_BYTES;
		char **b = realloc(t->blocks, (t->nblocks + 1) * sizeof(*b));

		if (!b)
			return NULL;
		t->blocks = b;
		if (!(b[t->nblocks] = malloc(sz)))
			return NULL;
		t->cur = b[t->nblocks++];
		t->left = sz;
	}
	d = t->cur;
	memcpy(d, s, len);
	d[len] = 0;
	t->cur += len + 1;
	t->left -= len + 1;
	return d;
}

/* Appends an entry named nm (stored in t already, or NULL: -ENOMEM). */
static int64_t add_entry(struct trec_jit_table *t, uint64_t start, uint64_t size,
			 uint64_t load_ns, uint64_t code_index, const char *nm)
{
	struct trec_jit_entry *e;

	if (!nm || TREC_GROW(t->entries, t->cap, (size_t)t->n + 1, 64))
		return -ENOMEM;
	e = &t->entries[t->n];
	*e = (struct trec_jit_entry){
		.start = start,
		.size = size,
		.load_ns = load_ns,
		.code_index = code_index,
		.name = nm,
		.first_line = t->nlines,
	};
	return t->n++;
}

/* max_entries reached: the table is marked truncated. */
static bool full(struct trec_jit_table *t)
{
	if (t->n < t->lim.max_entries)
		return false;
	t->flags |= TREC_JIT_F_TRUNCATED;
	return true;
}

int64_t trec_jit_table_add(struct trec_jit_table *t, uint64_t start, uint64_t size,
			   uint64_t load_ns, uint64_t code_index, const char *name, size_t len)
{
	if (full(t))
		return -E2BIG;
	if (len > t->lim.max_name)
		len = t->lim.max_name;
	return add_entry(t, start, size, load_ns, code_index, store(t, name, len));
}

int64_t trec_jit_table_add_moved(struct trec_jit_table *t, uint64_t start, uint64_t size,
				 uint64_t load_ns, uint64_t code_index, const char *name)
{
	return full(t) ? -E2BIG : add_entry(t, start, size, load_ns, code_index, name);
}

int trec_jit_table_add_line(struct trec_jit_table *t, uint64_t addr, uint32_t line,
			    uint32_t file)
{
	if (!t->n)
		return -EINVAL;
	if (t->nlines >= t->lim.max_lines) {
		t->flags |= TREC_JIT_F_TRUNCATED;
		return -E2BIG;
	}
	if (TREC_GROW(t->lines, t->caplines, (size_t)t->nlines + 1, 64))
		return -ENOMEM;
	t->lines[t->nlines++] = (struct trec_jit_line){ addr, line, file };
	t->entries[t->n - 1].num_lines++;
	return 0;
}

struct file_key {
	const struct trec_jit_table *t;
	const char *name;
	size_t len;
};

static bool file_eq(const void *ctx, uint32_t idx)
{
	const struct file_key *k = ctx;
	const char *f = k->t->files[idx];

	return !strncmp(f, k->name, k->len) && !f[k->len];
}

int64_t trec_jit_table_file(struct trec_jit_table *t, const char *name, size_t len)
{
	const char *s;
	uint64_t h;
	uint32_t i;

	if (len > t->lim.max_name)
		len = t->lim.max_name;
	h = trec_hash(name, len);
	i = trec_itab_find(&t->file_index, h, file_eq, &(struct file_key){ t, name, len });
	if (i != TREC_ITAB_NONE)
		return i;
	if (TREC_GROW(t->files, t->capfiles, (size_t)t->nfiles + 1, 64) ||
	    !(s = store(t, name, len)) || trec_itab_insert(&t->file_index, h, t->nfiles))
		return -ENOMEM;
	t->files[t->nfiles] = s;
	return t->nfiles++;
}

static int cmp_line(const void *a, const void *b)
{
	const struct trec_jit_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void trec_jit_table_sort_lines(struct trec_jit_table *t, uint32_t i)
{
	struct trec_jit_entry *e = &t->entries[i];

	if (e->num_lines > 1)
		qsort(t->lines + e->first_line, e->num_lines, sizeof(*t->lines), cmp_line);
}

/* One record: entries [a, b) with their rows, files renumbered to those
 * the rows use (stamp[] marks which global files this record has seen). */
static int emit_part(const struct trec_jit_table *t, const struct trec_jitsyms *hdr,
		     uint32_t a, uint32_t b, uint32_t part, uint32_t *stamp, uint32_t *local,
		     trec_jit_write_fn write, void *ctx)
{
	uint32_t l0 = t->entries[a].first_line;
	uint32_t l1 = t->entries[b - 1].first_line + t->entries[b - 1].num_lines;
	struct trec_jitsyms j = *hdr;
	struct trec_jit_entry *e = malloc((size_t)(b - a) * sizeof(*e));
	struct trec_jit_line *rows = malloc(((size_t)(l1 - l0) + 1) * sizeof(*rows));
	const char **files = malloc(((size_t)(l1 - l0) + 1) * sizeof(*files));
	int err = -ENOMEM;

	if (!e || !rows || !files)
		goto out;
	j.num_files = 0;
	for (uint32_t i = l0; i < l1; i++) {
		uint32_t g = t->lines[i].file;

		if (stamp[g] != part + 1) {
			stamp[g] = part + 1;
			local[g] = j.num_files;
			files[j.num_files++] = t->files[g];
		}
		rows[i - l0] = t->lines[i];
		rows[i - l0].file = local[g];
	}
	for (uint32_t i = a; i < b; i++) {
		e[i - a] = t->entries[i];
		e[i - a].first_line -= l0;
	}
	j.files = files;
	j.num_entries = b - a;
	j.entries = e;
	j.num_lines = l1 - l0;
	j.lines = rows;
	err = write(ctx, &j);
out:
	free(e);
	free(rows);
	free(files);
	return err;
}

int trec_jit_table_emit(const struct trec_jit_table *t, const struct trec_jitsyms *hdr,
			trec_jit_write_fn write, void *ctx)
{
	struct trec_jitsyms h = *hdr;
	uint32_t *stamp, *local;
	int err = 0;

	h.flags |= t->flags;
	h.bad = t->bad;
	if (!t->n) /* an empty table still says the file was read, and how */
		return write(ctx, &h);
	stamp = calloc((size_t)t->nfiles + 1, sizeof(*stamp));
	local = calloc((size_t)t->nfiles + 1, sizeof(*local));
	if (!stamp || !local)
		err = -ENOMEM;
	for (uint32_t a = 0, part = 0; a < t->n && !err; a += TREC_JIT_ENTRIES_PER_RECORD, part++) {
		uint32_t b = t->n - a > TREC_JIT_ENTRIES_PER_RECORD ? a + TREC_JIT_ENTRIES_PER_RECORD
								  : t->n;

		err = emit_part(t, &h, a, b, part, stamp, local, write, ctx);
	}
	free(stamp);
	free(local);
	return err;
}
