// SPDX-License-Identifier: MIT
/*
 * pthread TSD layout from libc's pthread_getspecific; see python_tsd.h.
 *
 * glibc (2.17 .. 2.36 at least) compiles the fast path for keys < 32 to
 *   cmp $0x1f,%edi; ja slow; mov %edi,%eax; add $IDX,%rax; shl $S,%rax;
 *   add %fs:0x10,%rax; mov DISP(%rax),%rdx
 * i.e. value = *(self + (key + IDX) << S + DISP), where %fs:0x10 holds the
 * thread descriptor's own address, which is the fs base.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/python/python_elf.h"
#include "record/interp/python/python_procmaps.h"
#include "record/interp/python/python_tsd.h"

int trec_tsd_decode(const uint8_t *c, size_t n, struct trec_tsd_info *out)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t add_fs_self[] = { 0x64, 0x48, 0x03, 0x04, 0x25, 0x10, 0, 0, 0 };
	int64_t idx = 0;
	int shift = -1, have_self = 0;
	size_t i = 0;

	while (i + 4 <= n) {
		if (!memcmp(c + i, endbr64, 4)) {
			i += 4;
		} else if (c[i] == 0x83 && c[i + 1] == 0xff) { /* cmp $imm8,%edi */
			i += 3;
		} else if (c[i] == 0x77) { /* ja rel8 */
			i += 2;
		} else if (c[i] == 0x0f && c[i + 1] == 0x87) { /* ja rel32 */
			i += 6;
		} else if (c[i] == 0x89 && (c[i + 1] == 0xf8 || c[i + 1] == 0xff)) {
			i += 2; /* mov %edi,%eax / mov %edi,%edi */
		} else if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xc0) {
			idx += (int8_t)c[i + 3]; /* add $imm8,%rax */
			i += 4;
		} else if (c[i] == 0x48 && c[i + 1] == 0xc1 && c[i + 2] == 0xe0 && shift < 0) {
			shift = c[i + 3]; /* shl $imm8,%rax */
			i += 4;
		} else if (i + sizeof(add_fs_self) <= n &&
			   !memcmp(c + i, add_fs_self, sizeof(add_fs_self))) {
			have_self = 1;
			i += sizeof(add_fs_self);
		} else if (c[i] == 0x48 && c[i + 1] == 0x8b && (c[i + 2] & 0xc7) == 0x40 &&
			   have_self && shift > 0 && shift < 8) {
			/* mov disp8(%rax),%reg: the value load */
			out->multiplier = (uint8_t)(1u << shift);
			out->offset = (int32_t)((idx << shift) + (int8_t)c[i + 3]);
			out->indirect = 0;
			return 0;
		} else {
			return -ENOTSUP;
		}
	}
	return -ENOTSUP;
}

int trec_tsd_detect_file(const char *path, struct trec_tsd_info *out)
{
	struct trec_pyelf e;
	uint8_t code[64];
	uint64_t addr;
	int err;

	err = trec_pyelf_open(&e, path);
	if (err)
		return err;
	err = trec_pyelf_symbol(&e, "pthread_getspecific", &addr, NULL);
	if (!err)
		err = trec_pyelf_read(&e, addr, code, sizeof(code));
	if (!err)
		err = trec_tsd_decode(code, sizeof(code), out);
	trec_pyelf_close(&e);
	return err;
}

struct tsd_search {
	int pid;
	int want_libc; /* pass 1: only files named libc*; pass 2: the rest */
	int last_err;
	char last_path[4096];
	struct trec_tsd_info *out;
};

static int try_mapping(void *ctx, const struct trec_py_mapping *m)
{
	struct tsd_search *s = ctx;
	const char *base = strrchr(m->path, '/');
	char path[4200];
	int err, is_libc;

	base = base ? base + 1 : m->path;
	is_libc = !strncmp(base, "libc", 4) && (base[4] == '.' || base[4] == '-');
	if (!m->exec || !strcmp(m->path, s->last_path) || is_libc != s->want_libc)
		return 0;
	snprintf(s->last_path, sizeof(s->last_path), "%s", m->path);
	trec_py_proc_path(s->pid, m->path, path, sizeof(path));
	err = trec_tsd_detect_file(path, s->out);
	if (!err)
		return 1;
	if (err != -ENOENT)
		s->last_err = err;
	return 0;
}

int trec_tsd_detect_pid(int pid, struct trec_tsd_info *out)
{
	struct tsd_search s = { .pid = pid, .want_libc = 1, .last_err = -ENOENT, .out = out };
	int ret;

	for (; s.want_libc >= 0; s.want_libc--) {
		s.last_path[0] = 0;
		ret = trec_py_for_each_mapping(pid, try_mapping, &s);
		if (ret < 0)
			return ret;
		if (ret > 0)
			return 0;
	}
	return s.last_err;
}
