// SPDX-License-Identifier: MIT
/* trecord's small parts: u64map, msg_queue, file ids, kallsyms parsing
 * and sorting. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/procs/file_id.h"
#include "record/kernel/kallsyms.h"
#include "record/io/msg_queue.h"
#include "format/containers/u64map.h"
#include "unit_check.h"

static void test_u64map(void)
{
	struct trec_u64map m = { 0 };
	int ok = 1, err;

	for (uint64_t i = 0; i < 5000; i++)
		trec_u64map_put(&m, i * 7919, (void *)(uintptr_t)(i + 1), &err);
	CHECK("u64map: 5000 inserts", m.n == 5000);
	for (uint64_t i = 0; i < 5000; i += 2)
		ok &= trec_u64map_del(&m, i * 7919) == (void *)(uintptr_t)(i + 1);
	CHECK("u64map: deletes return the values", ok && m.n == 2500);
	for (uint64_t i = 0; i < 5000; i++)
		ok &= trec_u64map_get(&m, i * 7919) == (i % 2 ? (void *)(uintptr_t)(i + 1) : NULL);
	CHECK("u64map: survivors found after backward-shift deletes, deleted ones gone", ok);
	CHECK("u64map: replace returns the old value",
	      trec_u64map_put(&m, 7919, (void *)9, &err) == (void *)2 && trec_u64map_get(&m, 7919) == (void *)9);
	size_t n = 0;
	uint64_t k;
	void *v;
	for (size_t it = 0; trec_u64map_next(&m, &it, &k, &v);)
		n++;
	CHECK("u64map: iteration visits each entry once", n == m.n);
	trec_u64map_free(&m);
}

static void test_queue(void)
{
	struct trec_msg_queue q;
	struct trec_msg *m;
	bool closed;
	int drops = 0;

	trec_msg_queue_init(&q, 4, 1 << 20);
	for (int i = 0; i < 6; i++)
		drops += trec_msg_queue_push(&q, &i, sizeof(i)) == -ENOSPC;
	CHECK("queue: pushes past capacity are dropped, not blocked", drops == 2);
	m = trec_msg_queue_pop(&q, 0, &closed);
	CHECK("queue: FIFO order", m && m->len == sizeof(int) && *(int *)m->data == 0);
	free(m);
	trec_msg_queue_close(&q);
	CHECK("queue: no pushes after close", trec_msg_queue_push(&q, "x", 1) == -EPIPE);
	int left = 0;
	while ((m = trec_msg_queue_pop(&q, 0, &closed))) {
		left++;
		free(m);
	}
	CHECK("queue: close drains what is left, then reports closed", left == 3 && closed);
	trec_msg_queue_destroy(&q);
	trec_msg_queue_init(&q, 4, 10);
	CHECK("queue: the byte bound drops too", trec_msg_queue_push(&q, "0123456789a", 11) == -ENOSPC);
	trec_msg_queue_destroy(&q);
}

static void test_file_id(void)
{
	char path[] = "/tmp/trec-fileid-XXXXXX";
	int fd = mkstemp(path);
	struct trec_file f1, f2;
	uint64_t a, b;
	static char buf[20000];

	memset(buf, 'x', sizeof(buf));
	CHECK("file_id: temp file", fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	CHECK("file_id: content id", trec_file_id_from_contents(fd, sizeof(buf), &a) == 0 && a != 0);
	/* A byte in the middle is not hashed; the last 4 KiB are. */
	pwrite(fd, "y", 1, 10000);
	trec_file_id_from_contents(fd, sizeof(buf), &b);
	CHECK("file_id: only the first and last 4 KiB count", a == b);
	pwrite(fd, "y", 1, sizeof(buf) - 1);
	trec_file_id_from_contents(fd, sizeof(buf), &b);
	CHECK("file_id: a change in the last 4 KiB changes the id", a != b);
	CHECK("file_id: a non-ELF file is described by contents",
	      trec_file_describe(fd, path, &f1) == 0 && !f1.is_elf && f1.build_id_len == 0 &&
	      f1.file_id == b && !strcmp(f1.path, path) && f1.debuglink[0] == 0);
	trec_file_release(&f1);
	close(fd);
	unlink(path);

	fd = open("/proc/self/exe", O_RDONLY);
	CHECK("file_id: our ELF is described", trec_file_describe(fd, "self", &f1) == 0 && f1.is_elf);
	CHECK("file_id: build-id read (gcc links one by default)", f1.build_id_len == 20);
	CHECK("file_id: the id comes from the build-id",
	      f1.file_id == trec_file_id_from_build_id(f1.build_id, f1.build_id_len));
	CHECK("file_id: PT_LOADs read, one executable", f1.num_loads >= 2);
	uint64_t va;
	int exec_seg = -1;
	for (size_t i = 0; i < f1.num_loads; i++)
		if (f1.loads[i].exec)
			exec_seg = i;
	CHECK("file_id: offset -> vaddr in the executable segment",
	      exec_seg >= 0 && trec_file_vaddr_of_offset(&f1, f1.loads[exec_seg].offset & ~4095ULL, &va) &&
	      va == (f1.loads[exec_seg].offset & ~4095ULL) - f1.loads[exec_seg].offset + f1.loads[exec_seg].vaddr);
	CHECK("file_id: an offset past every segment maps to itself",
	      !trec_file_vaddr_of_offset(&f1, 1ULL << 40, &va) && va == 1ULL << 40);
	close(fd);
	fd = open("/proc/self/exe", O_RDONLY);
	trec_file_describe(fd, "again", &f2);
	CHECK("file_id: stable across calls", f1.file_id == f2.file_id);
	trec_file_release(&f1);
	trec_file_release(&f2);
	close(fd);
}

static void test_kallsyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t helper\n"
		"ffffffff82000000 D some_data\n"
		"ffffffff81000080 T startup_64\n"
		"ffffffffc0001000 t mod_fn\t[mymod]\n"
		"ffffffffc0001000 t mod_alias\t[mymod]\n"
		"ffffffffc0002000 t mod_next\t[mymod]\n"
		"bogus line\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct trec_kallsyms k;
	struct trec_ksym_subset u;
	struct trec_ksym *list;
	uint32_t n;

	CHECK("kallsyms: parses", trec_kallsyms_read(f, &k) == 0);
	fclose(f);
	CHECK("kallsyms: text symbols only, sorted", k.num == 6 && k.syms[0].addr == 0xffffffff81000000 &&
	      k.syms[1].addr == 0xffffffff81000080 && k.syms[5].addr == 0xffffffffc0002000);
	CHECK("kallsyms: module names", !strcmp(k.syms[5].module, "mymod") && !strcmp(k.syms[0].module, "") &&
	      !strcmp(k.syms[5].name, "mod_next"));
	CHECK("kallsyms: find", trec_kallsyms_find(&k, 0xffffffff81000090) == 1 &&
	      trec_kallsyms_find(&k, 0xffffffff80000000) == -1);
	trec_ksym_subset_init(&u, &k);
	trec_ksym_subset_add(&u, &k, 0xffffffff81000090, false);
	trec_ksym_subset_add(&u, &k, 0xffffffffc0001010, false);
	list = trec_ksym_subset_list(&u, &k, &n);
	/* startup_64 + helper (its end), one of the two at c0001000 + mod_next. */
	CHECK("kallsyms: subset is each hit symbol and the next higher one", n == 4 &&
	      list[0].addr == 0xffffffff81000080 && list[1].addr == 0xffffffff81000100 &&
	      list[2].addr == 0xffffffffc0001000 && list[3].addr == 0xffffffffc0002000);
	free(list);
	trec_ksym_subset_free(&u);

	/* A return address at helper's first byte is named by the call before
	 * it, in startup_64: that symbol must be kept too. */
	trec_ksym_subset_init(&u, &k);
	trec_ksym_subset_add(&u, &k, 0xffffffff81000100, true);
	list = trec_ksym_subset_list(&u, &k, &n);
	CHECK("kallsyms: a return address also keeps the symbol holding addr - 1", n == 3 &&
	      list[0].addr == 0xffffffff81000080 && list[1].addr == 0xffffffff81000100 &&
	      list[2].addr == 0xffffffffc0001000);
	free(list);
	trec_ksym_subset_free(&u);
	trec_kallsyms_free(&k);

	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t x\n";
	f = fmemopen((void *)hidden, sizeof(hidden) - 1, "r");
	CHECK("kallsyms: all-zero addresses (kptr_restrict) are EPERM", trec_kallsyms_read(f, &k) == -EPERM);
	fclose(f);
}

/* A kernel's own symbols in order, then modules' and BPF programs' that
 * are not: the out-of-order tail is sorted and merged into the head. Each
 * name is its address, so a symbol moved without its name shows. */
static void test_kallsyms_tail(void)
{
	size_t cap = 1 << 20, len = 0, nhead = 3000, ntail = 1500, bad = 0;
	char *text = malloc(cap);
	uint64_t a = 0xffffffff81000000ULL, sum = 0, ksum = 0;
	struct trec_kallsyms k;
	FILE *f;

	srand(7);
	for (size_t i = 0; i < nhead + ntail; i++) {
		uint64_t v = i < nhead ? (a += (uint64_t)(rand() % 3) * 16) /* ties too */
				       : 0xffffffff81000000ULL + (uint64_t)(rand() % 200000) * 8;

		len += (size_t)snprintf(text + len, cap - len, "%016llx %c n%llx%s\n",
					(unsigned long long)v, i % 2 ? 't' : 'T', (unsigned long long)v,
					i < nhead ? "" : "\t[mod]");
		sum += v;
	}
	f = fmemopen(text, len, "r");
	CHECK("kallsyms tail: parses", f && trec_kallsyms_read(f, &k) == 0);
	fclose(f);
	for (size_t i = 0; i < k.num; i++) {
		char want[32];

		snprintf(want, sizeof(want), "n%llx", (unsigned long long)k.syms[i].addr);
		bad += strcmp(k.syms[i].name, want) != 0;
		bad += i && k.syms[i - 1].addr > k.syms[i].addr;
		ksum += k.syms[i].addr;
	}
	CHECK("kallsyms tail: every symbol kept, in address order, with its own name",
	      k.num == nhead + ntail && sum == ksum && !bad);
	CHECK("kallsyms tail: finds a tail symbol between head ones",
	      k.num && trec_kallsyms_find(&k, k.syms[k.num / 2].addr) >= (long)(k.num / 2) &&
	      k.syms[trec_kallsyms_find(&k, k.syms[k.num / 2].addr)].addr == k.syms[k.num / 2].addr);
	trec_kallsyms_free(&k);

	/* On equal addresses the head's line stays first. */
	static const char tie[] = "ffffffff81000000 T a\nffffffff81000010 T b\n"
				  "ffffffff81000008 t d\t[m]\nffffffff81000010 t c\t[m]\n";
	f = fmemopen((void *)tie, sizeof(tie) - 1, "r");
	CHECK("kallsyms tail: merged around a tie", trec_kallsyms_read(f, &k) == 0 && k.num == 4 &&
	      !strcmp(k.syms[1].name, "d") && !strcmp(k.syms[2].name, "b") &&
	      !strcmp(k.syms[3].name, "c"));
	fclose(f);
	trec_kallsyms_free(&k);
	free(text);
}

int main(void)
{
	test_u64map();
	test_queue();
	test_file_id();
	test_kallsyms();
	test_kallsyms_tail();
	return failures != 0;
}
