// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the /proc text parsers trecord reads while
 * recording: /proc/PID/maps (record/procs/proc_maps.c: a mapped file's
 * name is chosen by whoever created it, spaces, newlines and
 * " (deleted)" included), /proc/PID/stat's image identity (proc_maps.c:
 * the comm is the process's own choice, ")" and spaces included) and
 * /proc/kallsyms (record/kernel/kallsyms.c). The first byte picks the
 * parser. Rules checked: every parsed mapping has start < end (an empty
 * one is rejected) and a path; a stat the parser refuses leaves the
 * identity {0, 0}; kallsyms comes out sorted, and find() and the subset
 * agree with it for a few addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/kernel/kallsyms.h"
#include "record/procs/proc_maps.h"

static void fuzz_maps(FILE *f)
{
	struct trec_proc_maps m = { 0 };

	if (!trec_proc_maps_read(f, &m)) {
		for (size_t i = 0; i < m.n; i++)
			if (m.v[i].start >= m.v[i].end || !m.v[i].path)
				abort();
	}
	trec_proc_maps_free(&m);
}

static void fuzz_kallsyms(FILE *f, const uint8_t *data, size_t size)
{
	struct trec_kallsyms k = { 0 };
	struct trec_ksym_subset u;
	struct trec_ksym *list;
	uint32_t n = 0;

	if (trec_kallsyms_read(f, &k))
		return;
	for (size_t i = 1; i < k.num; i++)
		if (k.syms[i].addr < k.syms[i - 1].addr)
			abort();
	if (!trec_ksym_subset_init(&u, &k)) {
		/* Probe at each symbol and at addresses made of input bytes. */
		for (size_t i = 0; i < k.num && i < 8; i++) {
			long at = trec_kallsyms_find(&k, k.syms[i].addr);

			if (at < 0 || k.syms[at].addr != k.syms[i].addr)
				abort();
			trec_ksym_subset_add(&u, &k, k.syms[i].addr + 1, true);
		}
		for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
			uint64_t a;

			memcpy(&a, data + i, 8);
			trec_kallsyms_find(&k, a);
			trec_ksym_subset_add(&u, &k, a, a & 1);
		}
		list = trec_ksym_subset_list(&u, &k, &n);
		for (uint32_t i = 1; list && i < n; i++)
			if (list[i].addr < list[i - 1].addr)
				abort();
		free(list);
		trec_ksym_subset_free(&u);
	}
	trec_kallsyms_free(&k);
}

static void fuzz_stat(const uint8_t *data, size_t size)
{
	uint64_t id[2] = { 1, 1 };

	if (trec_proc_image_id_parse((const char *)data, size, id) && (id[0] || id[1]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f;

	if (size < 2)
		return 0;
	if ((data[0] & 3) == 2) { /* bit 0 clear: maps until now, stat by bit 1 */
		fuzz_stat(data + 1, size - 1);
		return 0;
	}
	f = fmemopen((void *)(data + 1), size - 1, "r");
	if (!f)
		return 0;
	if (data[0] & 1)
		fuzz_kallsyms(f, data + 1, size - 1);
	else
		fuzz_maps(f);
	fclose(f);
	return 0;
}
