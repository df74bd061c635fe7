/* SPDX-License-Identifier: MIT */
/*
 * Finding Ruby (MRI) in a mapped file: the interpreter loop rb_vm_exec,
 * the thread-local execution context ruby_current_ec (its TLS offset and
 * the GOT word the dynamic loader fills with its module id) and the
 * version, all from libruby's own dynamic symbols and relocations; the
 * struct layouts from a per-version table (MRI publishes none and Debian
 * ships no debug data): 3.1 only, checked against a live interpreter by
 * tests/harness/test_unwind_ruby.sh.
 */
#ifndef TREC_RUBY_DETECT_H
#define TREC_RUBY_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "ruby_types.h"
#include "trec_types.h"

/* Userspace-only layout: what describing an iseq reads (ruby_iseq.c). */
struct trec_rb_layout {
	/* rb_iseq_constant_body */
	uint16_t body_iseq_size, body_pathobj, body_label, body_first_lineno;
	uint16_t body_insns_info, body_insns_size, body_succ_table;
	/* iseq_insn_info_entry: size, and where line_no is */
	uint16_t insn_entry_size, insn_entry_line;
	/* RString / RArray (RBasic flags first) */
	uint16_t str_embed_ptr, str_heap_len, str_heap_ptr;
	uint16_t ary_embed_ptr, ary_heap_len, ary_heap_ptr;
};

struct trec_rb_offsets {
	uint8_t major, minor, micro;
	uint64_t exec_start, exec_end; /* rb_vm_exec, ELF vaddrs */
	uint64_t tls_module_got;       /* ELF vaddr of the DTPMOD64 word */
	uint64_t tls_offset;           /* ruby_current_ec in the TLS block */
	struct trec_rb_proc_info info; /* layout part; addresses filled per pid */
	struct trec_rb_layout lay;
};

/*
 * Detects Ruby in the ELF file at path. 0 with *o filled; -ENOENT when it
 * is not a Ruby interpreter; another negative errno when it is one we
 * cannot unwind, with the reason in err (may be NULL).
 */
int trec_rb_detect(const char *path, struct trec_rb_offsets *o, char *err, size_t errlen);

/* The layout of o->major.o->minor into o->info and o->lay: 0, or
 * -ENOTSUP for a version without a table. */
int trec_rb_layout_for(struct trec_rb_offsets *o);

/* ruby_procs value for a process that maps the file with this bias. */
void trec_rb_proc_info_init(const struct trec_rb_offsets *o, uint64_t bias,
			    struct trec_rb_proc_info *info);
/* interpreter_offsets value of the file. */
void trec_rb_offset_range(const struct trec_rb_offsets *o, struct trec_offset_range *r);

#endif /* TREC_RUBY_DETECT_H */
