// SPDX-License-Identifier: MIT
/*
 * The delta store against the lookup rule of bpf/trec_types.h: for random
 * tables (dense pages, empty pages, page-boundary entries, several files in
 * one store) every address must resolve to the same rule as the source
 * entries; out-of-range addresses must miss the page map. Also: interning,
 * -ENOSPC and rollback, and real files (libc, a workload) end to end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_delta_sink.h"
#include "unit_check.h"


static uint64_t rng_state = 0x853c49e6748fea9bULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A random table: n_infos distinct rules, some commands, pages with 0..many
 * deltas, entries on page boundaries. */
static void random_table(struct trec_file_deltas *d, uint64_t base, int npages, int n_infos)
{
	size_t cap = 4096;
	d->entries = calloc(cap, sizeof(*d->entries));
	d->num = 0;
	for (int p = 0; p < npages; p++) {
		uint64_t page = base + ((uint64_t)p << TREC_DELTA_PAGE_BITS);
		int kind = (int)(rnd() % 5);
		int n = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? 700 : (int)(rnd() % 40);
		uint64_t a = page + (kind == 1 ? 0 : rnd() % 64); /* kind 1: at the boundary */
		for (int i = 0; i < n && a < page + 0x10000; i++) {
			if (d->num == cap) {
				cap *= 2;
				d->entries = realloc(d->entries, cap * sizeof(*d->entries));
			}
			struct trec_delta_entry *e = &d->entries[d->num++];
			memset(e, 0, sizeof(*e));
			e->addr = a;
			if (rnd() % 6 == 0) {
				e->command = TREC_UNWIND_COMMAND | (uint16_t)(rnd() % 6);
			} else {
				int r = (int)(rnd() % (uint64_t)n_infos);
				e->info.cfa_reg = (uint8_t)(1 + r % 2);
				e->info.cfa_param = 8 * (r / 2 % 50);
				e->info.fp_rule = (uint8_t)(r / 100 % 3);
				e->info.fp_param = e->info.fp_rule == TREC_FP_AT_CFA ? -8 * (r % 7) : 0;
			}
			a += 1 + rnd() % (kind == 2 ? 60 : 3000);
		}
	}
}

static uint64_t first_page(const struct trec_file_deltas *d)
{
	return d->entries[0].addr & ~TREC_DELTA_PAGE_MASK;
}
static uint64_t end_page(const struct trec_file_deltas *d)
{
	return (d->entries[d->num - 1].addr & ~TREC_DELTA_PAGE_MASK) + TREC_DELTA_PAGE_MASK + 1;
}

/* Every address in [first page - 64 KiB, last page + 128 KiB): the store's
 * rule equals the source rule inside the pages, and misses outside. */
static size_t check_all_addresses(struct fake_sink *f, uint64_t file_id,
				  const struct trec_file_deltas *d)
{
	size_t bad = 0;
	uint64_t lo = first_page(d), hi = end_page(d);
	uint64_t from = lo >= 0x10000 ? lo - 0x10000 : 0;
	for (uint64_t a = from; a < hi + 0x20000; a++) {
		struct resolved_rule got = fake_lookup(f, file_id, a);
		struct resolved_rule want = { .no_page = 1 };
		if (a >= lo && a < hi)
			want = source_rule(d, a);
		if (!resolved_eq(&got, &want) && bad++ < 5)
			fprintf(stderr, "file %#lx addr %#lx: got no_page=%d cmd=%#x, want no_page=%d cmd=%#x\n",
				(unsigned long)file_id, (unsigned long)a, got.no_page, got.command,
				want.no_page, want.command);
	}
	return bad;
}

static size_t distinct_infos(struct trec_file_deltas *ds, int n)
{
	/* Quadratic but small: the random tables use < 300 distinct rules. */
	struct trec_unwind_info seen[1024];
	size_t ns = 0;
	for (int t = 0; t < n; t++)
		for (size_t i = 0; i < ds[t].num; i++) {
			const struct trec_delta_entry *e = &ds[t].entries[i];
			if (e->command)
				continue;
			size_t j = 0;
			while (j < ns && memcmp(&seen[j], &e->info, sizeof(e->info)) != 0)
				j++;
			if (j == ns && ns < 1024)
				seen[ns++] = e->info;
		}
	return ns;
}

static void test_random_tables(void)
{
	enum { NFILES = 6 };
	struct trec_file_deltas ds[NFILES];
	struct fake_sink *f = fake_sink_new(1 << 20);
	struct trec_delta_store *s = trec_delta_store_new(&fake_sink_ops, f);
	int load_err = 0;
	for (int t = 0; t < NFILES; t++) {
		/* Files overlap in address space: only the file id separates them. */
		random_table(&ds[t], 0x400000 + (uint64_t)(t % 2) * 0x30000, 3 + t, 40 + 40 * t);
		load_err |= trec_delta_store_load(s, 100 + (uint64_t)t, &ds[t]);
	}
	CHECK("store: random tables load", load_err == 0);
	size_t bad = 0;
	for (int t = 0; t < NFILES; t++)
		bad += check_all_addresses(f, 100 + (uint64_t)t, &ds[t]);
	CHECK("store: every address resolves like the source table", bad == 0);

	uint32_t deltas, infos, pages, files;
	trec_delta_store_usage(s, &deltas, &infos, &pages, &files);
	size_t want_deltas = 1, want_pages = 0;
	for (int t = 0; t < NFILES; t++) {
		want_deltas += ds[t].num + 1;
		want_pages += (end_page(&ds[t]) - first_page(&ds[t])) >> TREC_DELTA_PAGE_BITS;
	}
	CHECK("store: one guard per file plus index 0", deltas == want_deltas);
	CHECK("store: a page entry for every page, empty ones too",
	      pages == want_pages && f->live_pages == want_pages);
	CHECK("store: unwind infos interned once each", infos == distinct_infos(ds, NFILES));
	CHECK("store: file count", files == NFILES);
	CHECK("store: index 0 is INVALID",
	      f->deltas[0].unwind_info == (TREC_UNWIND_COMMAND | TREC_CMD_INVALID));

	/* Loading again is a no-op. */
	CHECK("store: second load of a file id is a no-op",
	      trec_delta_store_load(s, 100, &ds[1]) == 0 && trec_delta_store_has(s, 100) &&
		      !trec_delta_store_has(s, 99) && check_all_addresses(f, 100, &ds[0]) == 0);
	trec_delta_store_free(s);
	fake_sink_free(f);
	for (int t = 0; t < NFILES; t++)
		trec_file_deltas_free(&ds[t]);
}

static void test_limits(void)
{
	struct trec_file_deltas big, small;
	random_table(&big, 0x10000, 6, 50);
	random_table(&small, 0x10000, 1, 20);
	struct fake_sink *f = fake_sink_new(1 << 16);
	struct trec_delta_store *s = trec_delta_store_new(&fake_sink_ops, f);

	trec_delta_store_set_limits(s, (uint32_t)big.num, 0, 0);
	uint32_t before;
	trec_delta_store_usage(s, &before, NULL, NULL, NULL);
	int err = trec_delta_store_load(s, 1, &big);
	uint32_t after, pages;
	trec_delta_store_usage(s, &after, NULL, &pages, NULL);
	CHECK("store: -ENOSPC when the delta array is full",
	      err == -ENOSPC && after == before && pages == 0 && f->live_pages == 0 &&
		      !trec_delta_store_has(s, 1));
	CHECK("store: a load that fits still works after -ENOSPC",
	      trec_delta_store_load(s, 2, &small) == 0 && check_all_addresses(f, 2, &small) == 0);
	trec_delta_store_free(s);

	/* Unwind infos full. */
	memset(f->infos, 0, sizeof(f->infos));
	s = trec_delta_store_new(&fake_sink_ops, f);
	trec_delta_store_set_limits(s, 0, 3, 0);
	CHECK("store: -ENOSPC when unwind infos are full", trec_delta_store_load(s, 3, &big) == -ENOSPC);
	trec_delta_store_free(s);

	/* Page map full, and a sink failure in the middle: no page is left
	 * behind and the delta range is reused. */
	s = trec_delta_store_new(&fake_sink_ops, f);
	f->live_pages = 0;
	trec_delta_store_set_limits(s, 0, 0, 2);
	CHECK("store: -ENOSPC when the page map is full", trec_delta_store_load(s, 4, &big) == -ENOSPC);
	trec_delta_store_set_limits(s, 0, 0, TREC_MAX_DELTA_PAGES);
	f->fail_set_page_after = 3;
	f->set_page_calls = 0;
	err = trec_delta_store_load(s, 5, &big);
	trec_delta_store_usage(s, &after, NULL, &pages, NULL);
	CHECK("store: sink error rolls back the pages written",
	      err == -E2BIG && f->live_pages == 0 && pages == 0 && after == 1 &&
		      !trec_delta_store_has(s, 5));
	f->fail_set_page_after = -1;
	CHECK("store: the same file loads after the failure",
	      trec_delta_store_load(s, 5, &big) == 0 && check_all_addresses(f, 5, &big) == 0);

	/* Unsorted input is refused. */
	struct trec_delta_entry bad[2] = { { .addr = 0x2000 }, { .addr = 0x1000 } };
	struct trec_file_deltas unsorted = { .num = 2, .entries = bad };
	CHECK("store: unsorted entries are refused", trec_delta_store_load(s, 6, &unsorted) == -EINVAL);
	trec_delta_store_free(s);
	fake_sink_free(f);
	trec_file_deltas_free(&big);
	trec_file_deltas_free(&small);
}

/* Real files: extraction + store; every address of the file's text. */
static void test_real_file(const char *name, const char *path)
{
	struct trec_file_deltas d;
	char label[256];
	int err = trec_deltas_extract(path, &d);
	snprintf(label, sizeof(label), "store: %s extracts", name);
	CHECK(label, err == 0 && d.num > 10);
	if (err)
		return;
	struct fake_sink *f = fake_sink_new(1 << 20);
	struct trec_delta_store *s = trec_delta_store_new(&fake_sink_ops, f);
	err = trec_delta_store_load(s, 42, &d);
	snprintf(label, sizeof(label), "store: %s every text address resolves like the extraction", name);
	CHECK(label, err == 0 && check_all_addresses(f, 42, &d) == 0);
	uint32_t deltas, infos, pages;
	trec_delta_store_usage(s, &deltas, &infos, &pages, NULL);
	printf("%s: %zu deltas, %u unwind infos, %u pages\n", name, d.num, infos, pages);
	trec_delta_store_free(s);
	fake_sink_free(f);
	trec_file_deltas_free(&d);
}

int main(void)
{
	test_random_tables();
	test_limits();
	test_real_file("libc", "/lib/x86_64-linux-gnu/libc.so.6");
	test_real_file("this test binary", "/proc/self/exe");
	return failures ? 1 : 0;
}
