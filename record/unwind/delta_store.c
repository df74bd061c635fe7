// SPDX-License-Identifier: MIT
/*
 * The delta store: loads each file's stack deltas into the three BPF maps
 * (layout and lookup rule in bpf/trec_types.h), through sink callbacks.
 *
 *  unwind_info_array  interned unique rules, indices < TREC_MAX_UNWIND_INFOS
 *  stack_deltas       one contiguous range per file, bump-allocated; index 0
 *                     and the slot right before each file's range hold an
 *                     INVALID command, so "deltas[first - 1]" never reads
 *                     another file's rule
 *  stack_delta_pages  {file, 64 KiB page} -> {first, count} for every page
 *                     from the file's first to its last delta page
 *
 * Nothing is ever freed from the arrays: files are few and their deltas are
 * shared by every process mapping them. A load that does not fit fails
 * with -ENOSPC and leaves the maps as they were (interned rules aside,
 * which stay valid and reusable).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "record/unwind/unwind_tables.h"

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))
/* Power of two, > 2 * TREC_MAX_UNWIND_INFOS: the table never fills up. */
#define INFO_SLOTS (4 * TREC_MAX_UNWIND_INFOS)

struct loaded_file {
	uint64_t file_id;
	uint32_t first, num; /* deltas [first, first + num) */
};

struct trec_delta_store {
	const struct trec_delta_sink_ops *ops;
	void *ctx;
	uint32_t max_deltas, max_infos, max_pages;

	struct trec_unwind_info *infos; /* [max_infos] */
	uint32_t num_infos;
	uint16_t *info_slots; /* [INFO_SLOTS]: index + 1, 0 = empty */

	uint32_t next_delta; /* bump pointer into stack_deltas */
	uint32_t pages_used;

	/* Loaded files: open-addressing set keyed by file id. */
	struct loaded_file *files;
	size_t files_cap, num_files;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t info_hash(const struct trec_unwind_info *ui)
{
	uint64_t a = (uint64_t)ui->cfa_reg | (uint64_t)ui->fp_rule << 8 | (uint64_t)ui->flags << 16 |
		     (uint64_t)ui->ra_rule << 24 | (uint64_t)(uint32_t)ui->ra_param << 32;
	uint64_t b = (uint64_t)(uint32_t)ui->cfa_param | (uint64_t)(uint32_t)ui->fp_param << 32;
	return mix64(a ^ mix64(b));
}

static bool info_eq(const struct trec_unwind_info *a, const struct trec_unwind_info *b)
{
	return a->cfa_reg == b->cfa_reg && a->fp_rule == b->fp_rule && a->flags == b->flags &&
	       a->cfa_param == b->cfa_param && a->fp_param == b->fp_param &&
	       a->ra_rule == b->ra_rule && a->ra_param == b->ra_param;
}

/* The unwind_info index for ui, adding it if new. 0 or negative errno. */
static int intern(struct trec_delta_store *s, const struct trec_unwind_info *in, uint16_t *idx)
{
	struct trec_unwind_info ui = *in;
	size_t mask = INFO_SLOTS - 1;
	for (size_t i = info_hash(&ui) & mask;; i = (i + 1) & mask) {
		uint16_t slot = s->info_slots[i];
		if (slot == 0) {
			if (s->num_infos >= s->max_infos)
				return -ENOSPC;
			int err = s->ops->set_unwind_info(s->ctx, s->num_infos, &ui);
			if (err)
				return err;
			s->infos[s->num_infos] = ui;
			s->info_slots[i] = (uint16_t)(++s->num_infos);
			*idx = (uint16_t)(s->num_infos - 1);
			return 0;
		}
		if (info_eq(&s->infos[slot - 1], &ui)) {
			*idx = slot - 1;
			return 0;
		}
	}
}

static struct loaded_file *find_file(const struct trec_delta_store *s, uint64_t file_id)
{
	if (!s->files_cap)
		return NULL;
	size_t mask = s->files_cap - 1;
	for (size_t i = mix64(file_id) & mask;; i = (i + 1) & mask) {
		struct loaded_file *f = &s->files[i];
		if (f->file_id == file_id && f->num != UINT32_MAX)
			return f;
		if (f->num == UINT32_MAX) /* empty slot */
			return NULL;
	}
}

static void insert_file(struct loaded_file *tab, size_t cap, const struct loaded_file *f)
{
	size_t mask = cap - 1;
	size_t i = mix64(f->file_id) & mask;
	while (tab[i].num != UINT32_MAX)
		i = (i + 1) & mask;
	tab[i] = *f;
}

static int add_file(struct trec_delta_store *s, const struct loaded_file *f)
{
	if ((s->num_files + 1) * 2 > s->files_cap) {
		size_t cap = s->files_cap ? s->files_cap * 2 : 64;
		struct loaded_file *tab = malloc(cap * sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (size_t i = 0; i < cap; i++)
			tab[i].num = UINT32_MAX;
		for (size_t i = 0; i < s->files_cap; i++)
			if (s->files[i].num != UINT32_MAX)
				insert_file(tab, cap, &s->files[i]);
		free(s->files);
		s->files = tab;
		s->files_cap = cap;
	}
	insert_file(s->files, s->files_cap, f);
	s->num_files++;
	return 0;
}

struct trec_delta_store *trec_delta_store_new(const struct trec_delta_sink_ops *ops, void *ctx)
{
	struct trec_delta_store *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ops = ops;
	s->ctx = ctx;
	s->max_deltas = TREC_MAX_STACK_DELTAS;
	s->max_infos = TREC_MAX_UNWIND_INFOS;
	s->max_pages = TREC_MAX_DELTA_PAGES;
	s->infos = calloc(TREC_MAX_UNWIND_INFOS, sizeof(*s->infos));
	s->info_slots = calloc(INFO_SLOTS, sizeof(*s->info_slots));
	/* Index 0 is the "before everything" INVALID delta. */
	const struct trec_stack_delta invalid = { 0, CMD(TREC_CMD_INVALID) };
	if (!s->infos || !s->info_slots || ops->set_deltas(ctx, 0, &invalid, 1) != 0) {
		trec_delta_store_free(s);
		return NULL;
	}
	s->next_delta = 1;
	return s;
}

void trec_delta_store_set_limits(struct trec_delta_store *s, uint32_t max_deltas,
				 uint32_t max_infos, uint32_t max_pages)
{
	if (max_deltas && max_deltas <= TREC_MAX_STACK_DELTAS)
		s->max_deltas = max_deltas;
	if (max_infos && max_infos <= TREC_MAX_UNWIND_INFOS)
		s->max_infos = max_infos;
	if (max_pages && max_pages <= TREC_MAX_DELTA_PAGES)
		s->max_pages = max_pages;
}

static bool valid_command(uint16_t c)
{
	return (c & TREC_UNWIND_COMMAND) && (c & ~TREC_UNWIND_COMMAND) <= TREC_CMD_LAST;
}

/* Deltas for d's entries, rules interned. Caller frees *out. */
static int encode_deltas(struct trec_delta_store *s, const struct trec_file_deltas *d,
			 struct trec_stack_delta **out)
{
	struct trec_stack_delta *v = malloc((d->num + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[0] = (struct trec_stack_delta){ 0, CMD(TREC_CMD_INVALID) }; /* the guard */
	for (size_t i = 0; i < d->num; i++) {
		const struct trec_delta_entry *e = &d->entries[i];
		int err = 0;
		if (i > 0 && e->addr <= d->entries[i - 1].addr)
			err = -EINVAL; /* the lookup needs strictly sorted addresses */
		else if (e->command && !valid_command(e->command))
			err = -EINVAL;
		else if (e->command)
			v[i + 1].unwind_info = e->command;
		else
			err = intern(s, &e->info, &v[i + 1].unwind_info);
		if (err) {
			free(v);
			return err;
		}
		v[i + 1].addr_low = (uint16_t)(e->addr & TREC_DELTA_PAGE_MASK);
	}
	*out = v;
	return 0;
}

/* Removes the first n pages written for a failed load. */
static void undo_pages(struct trec_delta_store *s, uint64_t file_id, uint64_t first_page,
		       uint64_t n)
{
	for (uint64_t p = 0; p < n; p++) {
		struct trec_delta_page_key k = { file_id, (first_page + p) << TREC_DELTA_PAGE_BITS };
		s->ops->delete_page(s->ctx, &k);
	}
}

/* Page entries for deltas at stack_deltas[first...]. */
static int write_pages(struct trec_delta_store *s, uint64_t file_id,
		       const struct trec_file_deltas *d, uint32_t first)
{
	uint64_t first_page = d->entries[0].addr >> TREC_DELTA_PAGE_BITS;
	uint64_t last_page = d->entries[d->num - 1].addr >> TREC_DELTA_PAGE_BITS;
	size_t i = 0;
	for (uint64_t p = first_page; p <= last_page; p++) {
		struct trec_delta_page_key k = { file_id, p << TREC_DELTA_PAGE_BITS };
		/* An empty page starts right after the previous page's deltas, so
		 * deltas[first - 1] is the rule that governs it. */
		struct trec_delta_page_value v = { first + (uint32_t)i, 0 };
		while (i < d->num && (d->entries[i].addr >> TREC_DELTA_PAGE_BITS) == p) {
			i++;
			v.num_deltas++;
		}
		int err = s->ops->set_page(s->ctx, &k, &v);
		if (err) {
			undo_pages(s, file_id, first_page, p - first_page);
			return err;
		}
	}
	return 0;
}

int trec_delta_store_load(struct trec_delta_store *s, uint64_t file_id,
			  const struct trec_file_deltas *d)
{
	if (find_file(s, file_id))
		return 0;
	struct loaded_file f = { .file_id = file_id, .first = s->next_delta, .num = 0 };
	if (d->num == 0)
		return add_file(s, &f); /* nothing to unwind with: lookups miss the page */

	uint64_t npages = (d->entries[d->num - 1].addr >> TREC_DELTA_PAGE_BITS) -
			  (d->entries[0].addr >> TREC_DELTA_PAGE_BITS) + 1;
	if ((uint64_t)s->next_delta + d->num + 1 > s->max_deltas ||
	    (uint64_t)s->pages_used + npages > s->max_pages)
		return -ENOSPC;

	struct trec_stack_delta *v;
	int err = encode_deltas(s, d, &v);
	if (err)
		return err;
	/* v[0] is the guard; the file's deltas start right after it. */
	uint32_t base = s->next_delta;
	err = s->ops->set_deltas(s->ctx, base, v, (uint32_t)d->num + 1);
	free(v);
	if (err)
		return err;
	err = write_pages(s, file_id, d, base + 1);
	if (err)
		return err; /* the bump pointer did not move: the range is reused */
	f.first = base + 1;
	f.num = (uint32_t)d->num;
	err = add_file(s, &f);
	if (err) {
		undo_pages(s, file_id, d->entries[0].addr >> TREC_DELTA_PAGE_BITS, npages);
		return err;
	}
	s->next_delta = base + 1 + (uint32_t)d->num;
	s->pages_used += (uint32_t)npages;
	return 0;
}

int trec_delta_store_has(const struct trec_delta_store *s, uint64_t file_id)
{
	return find_file(s, file_id) != NULL;
}

void trec_delta_store_usage(const struct trec_delta_store *s, uint32_t *deltas_used,
			    uint32_t *infos_used, uint32_t *pages_used, uint32_t *files)
{
	if (deltas_used)
		*deltas_used = s->next_delta;
	if (infos_used)
		*infos_used = s->num_infos;
	if (pages_used)
		*pages_used = s->pages_used;
	if (files)
		*files = (uint32_t)s->num_files;
}

void trec_delta_store_free(struct trec_delta_store *s)
{
	if (!s)
		return;
	free(s->infos);
	free(s->info_slots);
	free(s->files);
	free(s);
}
