// SPDX-License-Identifier: MIT
/* Ruby detection from libruby's dynamic symbols; see ruby_detect.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "record/interp/python/python_elf.h"
#include "record/interp/ruby/ruby_detect.h"

#ifndef R_X86_64_DTPMOD64
#define R_X86_64_DTPMOD64 16
#endif

/*
 * MRI 3.1 (vm_core.h, iseq.h, include/ruby/internal/core/r{string,array}.h):
 *  rb_execution_context_t: vm_stack 0, vm_stack_size 8 (words), cfp 16;
 *  rb_control_frame_t (64 bytes): pc 0, sp 8, iseq 16, self 24, ep 32,
 *    block_code 40, __bp__ 48, jit_return 56;
 *  rb_iseq_t: body 16;
 *  rb_iseq_constant_body: iseq_size 4 (u32), iseq_encoded 8, param 16..63,
 *    location 64: pathobj 64, base_label 72, label 80, first_lineno 88
 *    (a Fixnum); insns_info 120: body 120, positions 128, size 136 (u32),
 *    succ_index_table 144;
 *  iseq_insn_info_entry (12 bytes): line_no 0, node_id 4, events 8;
 *  RString: flags 0, embedded bytes at 16, heap len 16 and ptr 24;
 *  RArray: flags 0, embedded elements at 16, heap len 16 and ptr 32.
 */
static const struct trec_rb_proc_info layout_31 = {
	.version = 0x0301,
	.tcb_dtv = 8,   /* glibc x86-64 tcbhead_t.dtv */
	.dtv_entry = 16, /* dtv_t: pointer.val, pointer.to_free */
	.ec_vm_stack = 0,
	.ec_vm_stack_size = 8,
	.ec_cfp = 16,
	.cfp_size = 64,
	.cfp_pc = 0,
	.cfp_iseq = 16,
	.cfp_ep = 32,
	.iseq_body = 16,
	.body_id = { 8, 64, 80, 88 },
};

static const struct trec_rb_layout userspace_31 = {
	.body_iseq_size = 4,
	.body_pathobj = 64,
	.body_label = 80,
	.body_first_lineno = 88,
	.body_insns_info = 120,
	.body_insns_size = 136,
	.body_succ_table = 144,
	.insn_entry_size = 12,
	.insn_entry_line = 0,
	.str_embed_ptr = 16,
	.str_heap_len = 16,
	.str_heap_ptr = 24,
	.ary_embed_ptr = 16,
	.ary_heap_len = 16,
	.ary_heap_ptr = 32,
};

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The GOT word a DTPMOD64 relocation against symbol name fills. */
static int find_dtpmod(struct trec_pyelf *e, const char *name, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *d, *syms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(e->elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !(d = elf_getdata(scn, NULL)) ||
		    !(syms = elf_getdata(symscn, NULL)))
			continue;
		size_t end = trec_pyelf_entries(&sh, d, sizeof(Elf64_Rela));

		for (size_t i = 0; i < end; i++) {
			GElf_Rela r;
			GElf_Sym s;
			const char *n;

			if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_DTPMOD64 ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
				continue;
			n = elf_strptr(e->elf, symsh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				*vaddr = r.r_offset;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int trec_rb_layout_for(struct trec_rb_offsets *o)
{
	if (o->major != 3 || o->minor != 1)
		return -ENOTSUP;
	o->info = layout_31;
	o->lay = userspace_31;
	return 0;
}

int trec_rb_detect(const char *path, struct trec_rb_offsets *o, char *err, size_t errlen)
{
	struct trec_pyelf e;
	uint64_t exec_size = 0, ver_addr;
	char ver[32];
	unsigned maj, min, mic;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = trec_pyelf_open(&e, path);
	if (ret)
		return ret == -ENOEXEC ? -ENOENT : ret;
	/* Cheap rejection of every other file: both symbols must be there. */
	if (trec_pyelf_symbol(&e, "rb_vm_exec", &o->exec_start, &exec_size) ||
	    trec_pyelf_symbol(&e, "ruby_current_ec", &o->tls_offset, NULL)) {
		ret = -ENOENT;
		goto out;
	}
	if (trec_pyelf_symbol(&e, "ruby_version", &ver_addr, NULL) ||
	    trec_pyelf_read_str(&e, ver_addr, ver, sizeof(ver)) ||
	    sscanf(ver, "%u.%u.%u", &maj, &min, &mic) != 3 || maj > 255 || min > 255 || mic > 255) {
		ret = fail(err, errlen, -ENOTSUP, "%s: no readable ruby_version", path);
		goto out;
	}
	o->major = (uint8_t)maj, o->minor = (uint8_t)min, o->micro = (uint8_t)mic;
	if (e.ehdr.e_machine != EM_X86_64) {
		ret = fail(err, errlen, -ENOTSUP, "%s: ruby %s: only x86-64 is supported", path, ver);
		goto out;
	}
	if (trec_rb_layout_for(o)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: ruby %s: only 3.1 is supported", path, ver);
		goto out;
	}
	if (!exec_size || !trec_pyelf_is_text(&e, o->exec_start)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: rb_vm_exec is not code", path);
		goto out;
	}
	o->exec_end = o->exec_start + exec_size;
	/* A libruby built with initial-exec TLS has no DTPMOD64: unsupported. */
	if (find_dtpmod(&e, "ruby_current_ec", &o->tls_module_got)) {
		ret = fail(err, errlen, -ENOTSUP,
			   "%s: ruby %s: ruby_current_ec is not general-dynamic TLS", path, ver);
		goto out;
	}
	ret = 0;
out:
	trec_pyelf_close(&e);
	return ret;
}

void trec_rb_proc_info_init(const struct trec_rb_offsets *o, uint64_t bias,
			    struct trec_rb_proc_info *info)
{
	*info = o->info;
	info->tls_module_addr = o->tls_module_got + bias;
	info->tls_offset = o->tls_offset;
}

void trec_rb_offset_range(const struct trec_rb_offsets *o, struct trec_offset_range *r)
{
	memset(r, 0, sizeof(*r));
	r->lower1 = o->exec_start;
	r->upper1 = o->exec_end;
	r->program_index = TREC_PROG_UNWIND_RUBY;
}
