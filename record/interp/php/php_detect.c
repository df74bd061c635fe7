// SPDX-License-Identifier: MIT
/* Zend engine detection; see php_detect.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/php/php_detect.h"
#include "record/interp/python/python_cold.h"
#include "record/interp/python/python_elf.h"

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * The module API id in read-only data: "API" 8 digits "," then "NTS" or
 * "TS" (Zend/zend_build.h's ZEND_MODULE_BUILD_ID prefix). 0 with *api and
 * *zts set, or -ENOENT.
 */
static int find_api(struct trec_pyelf *e, uint32_t *api, int *zts)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e->elf, shstrndx, sh.sh_name)) || strcmp(name, ".rodata") ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (const char *p = d->d_buf, *end = p + d->d_size;
		     (p = memmem(p, (size_t)(end - p), "API", 3)) && end - p >= 14; p++) {
			uint32_t v = 0;
			int i;

			for (i = 3; i < 11 && p[i] >= '0' && p[i] <= '9'; i++)
				v = v * 10 + (uint32_t)(p[i] - '0');
			if (i != 11 || p[11] != ',')
				continue;
			if (!memcmp(p + 12, "NTS", 3) || !memcmp(p + 12, "TS", 2)) {
				*api = v;
				*zts = p[12] == 'T';
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Every offset BPF reads must fit the windows it reads (php_unwind.h). */
static int layout_fits(const struct trec_php_layout *l)
{
	const uint16_t ed[] = { l->ed_opline, l->ed_func, l->ed_prev };
	const uint16_t op64[] = { l->op_opcodes, l->op_filename };
	const uint16_t op32[] = { l->op_line_start, l->op_line_end };

	for (size_t i = 0; i < 3; i++)
		if (ed[i] % 8 || ed[i] + 8 > TREC_PHP_EXEC_READ)
			return 0;
	if (l->ed_call_info % 4 || l->ed_call_info + 4 > TREC_PHP_EXEC_READ || l->op_last % 8)
		return 0;
	if (l->fn_name % 8 || l->fn_name + 8 > TREC_PHP_FN_READ || l->fn_scope % 8 ||
	    l->fn_scope + 8 > TREC_PHP_FN_READ)
		return 0;
	for (size_t i = 0; i < 2; i++)
		if (op64[i] % 8 || op64[i] < l->op_last || op64[i] + 8 > l->op_last + TREC_PHP_OP_READ ||
		    op32[i] % 4 || op32[i] < l->op_last || op32[i] + 4 > l->op_last + TREC_PHP_OP_READ)
			return 0;
	return l->op_size > 0;
}

int trec_php_detect(const char *path, struct trec_php_engine *out, char *err, size_t errlen)
{
	uint64_t eg_size, loop_size, hook;
	struct trec_pyelf e;
	uint32_t api;
	int zts, ret;

	memset(out, 0, sizeof(*out));
	ret = trec_pyelf_open(&e, path);
	if (ret)
		return fail(err, errlen, ret == -ENOEXEC ? -ENOENT : ret, "%s: %s", path,
			    strerror(-ret));
	if (trec_pyelf_symbol(&e, "execute_ex", &out->loop_start, &loop_size) ||
	    trec_pyelf_symbol(&e, "zend_execute_ex", &hook, NULL)) {
		ret = fail(err, errlen, -ENOENT, "%s: not a Zend engine", path);
		goto out;
	}
	if (e.ehdr.e_machine != EM_X86_64) {
		ret = fail(err, errlen, -ENOTSUP, "%s: PHP on a machine other than x86-64", path);
		goto out;
	}
	if (find_api(&e, &api, &zts)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: no Zend module API id in .rodata", path);
		goto out;
	}
	if (zts) {
		ret = fail(err, errlen, -ENOTSUP, "%s: thread-safe (ZTS) PHP is not supported", path);
		goto out;
	}
	out->layout = trec_php_layout_of(api);
	if (!out->layout || !layout_fits(out->layout)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: Zend module API %u is not supported (8.2 is)",
			   path, api);
		goto out;
	}
	if (trec_pyelf_symbol(&e, "executor_globals", &out->executor_globals, &eg_size) ||
	    eg_size < out->layout->eg_current_execute_data + 8u || !loop_size ||
	    !trec_pyelf_is_text(&e, out->loop_start)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: executor_globals or execute_ex unusable", path);
		goto out;
	}
	out->loop_end = out->loop_start + loop_size;
	/* Unlikely blocks of the VM loop (Debian's build has them) run in the
	 * same native frame: without them, a sample there loses PHP frames. */
	if (trec_py_find_cold(&e, out->loop_start, out->loop_end, &out->cold_start, &out->cold_end))
		out->cold_start = out->cold_end = 0;
	ret = 0;
out:
	trec_pyelf_close(&e);
	return ret;
}

void trec_php_offset_range(const struct trec_php_engine *e, struct trec_offset_range *r)
{
	memset(r, 0, sizeof(*r));
	r->lower1 = e->loop_start;
	r->upper1 = e->loop_end;
	r->lower2 = e->cold_start;
	r->upper2 = e->cold_end;
	r->program_index = TREC_PROG_UNWIND_PHP;
}

void trec_php_proc_info_init(const struct trec_php_engine *e, uint64_t bias,
			     struct trec_php_proc_info *info)
{
	const struct trec_php_layout *l = e->layout;

	memset(info, 0, sizeof(*info));
	info->current_execute_data = bias + e->executor_globals + l->eg_current_execute_data;
	info->version = (uint16_t)(l->major << 8 | l->minor);
	info->ed_opline = l->ed_opline;
	info->ed_func = l->ed_func;
	info->ed_call_info = l->ed_call_info;
	info->ed_prev = l->ed_prev;
	info->fn_name = l->fn_name;
	info->fn_scope = l->fn_scope;
	info->op_last = l->op_last;
	info->op_opcodes = l->op_opcodes;
	info->op_filename = l->op_filename;
	info->op_line_start = l->op_line_start;
	info->op_line_end = l->op_line_end;
	info->op_size = l->op_size;
	info->op_lineno = l->op_lineno;
}
