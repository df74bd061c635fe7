// SPDX-License-Identifier: MIT
/*
 * An archive's line rows as DWARF 4, for the extracted debug files: one
 * compile unit spanning every symbol (so addr2line and gdb find it), and a
 * .debug_line program with one sequence per run of rows between gaps.
 * Inlined calls are not written (they would need subprogram DIEs).
 */
#include <dwarf.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "report/archive/archive_dwarf.h"

static void put_le(struct trec_buf *b, uint64_t v, unsigned n)
{
	uint8_t tmp[8];
	for (unsigned i = 0; i < n; i++)
		tmp[i] = (uint8_t)(v >> (8 * i));
	trec_buf_put(b, tmp, n);
}

static void put_sleb(struct trec_buf *b, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;
		v >>= 7; /* arithmetic shift: sign-extending */
		int done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
		trec_buf_u8(b, done ? byte : byte | 0x80);
		if (done)
			return;
	}
}

static void put_str(struct trec_buf *b, const char *s)
{
	trec_buf_put(b, s, strlen(s) + 1);
}

static void line_header(struct trec_buf *b, const struct trec_arc_tables *t,
			const uint32_t *dwfile)
{
	static const uint8_t std_lengths[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	put_le(b, 1, 1);  /* minimum_instruction_length */
	put_le(b, 1, 1);  /* maximum_operations_per_instruction */
	put_le(b, 1, 1);  /* default_is_stmt */
	put_le(b, (uint8_t)-5, 1); /* line_base */
	put_le(b, 14, 1); /* line_range */
	put_le(b, 13, 1); /* opcode_base */
	trec_buf_put(b, std_lengths, sizeof(std_lengths));
	trec_buf_u8(b, 0); /* no include_directories: paths are whole */
	for (size_t i = 0; i < t->num_strings; i++)
		if (dwfile[i]) {
			put_str(b, t->strings[i]);
			trec_buf_varint(b, 0); /* dir, mtime, length */
			trec_buf_varint(b, 0);
			trec_buf_varint(b, 0);
		}
	trec_buf_u8(b, 0);
}

static void set_address(struct trec_buf *b, uint64_t addr, unsigned asize)
{
	trec_buf_u8(b, 0);
	trec_buf_varint(b, 1 + asize);
	trec_buf_u8(b, DW_LNE_set_address);
	put_le(b, addr, asize);
}

static void line_program(struct trec_buf *b, const struct trec_arc_tables *t,
			 const uint32_t *dwfile, unsigned asize)
{
	int in_seq = 0;
	uint64_t addr = 0;
	uint32_t file = 1, line = 1;
	for (size_t i = 0; i < t->num_lines; i++) {
		const struct trec_arc_line *l = &t->lines[i];
		if (in_seq) {
			trec_buf_u8(b, DW_LNS_advance_pc);
			trec_buf_varint(b, l->addr - addr);
		}
		addr = l->addr;
		if (!l->file) { /* a gap ends the sequence; registers reset */
			if (in_seq) {
				trec_buf_u8(b, 0);
				trec_buf_varint(b, 1);
				trec_buf_u8(b, DW_LNE_end_sequence);
			}
			in_seq = 0;
			file = line = 1;
			continue;
		}
		if (!in_seq)
			set_address(b, addr, asize);
		in_seq = 1;
		if (dwfile[l->file - 1] != file) {
			file = dwfile[l->file - 1];
			trec_buf_u8(b, DW_LNS_set_file);
			trec_buf_varint(b, file);
		}
		if (l->line != line) {
			trec_buf_u8(b, DW_LNS_advance_line);
			put_sleb(b, (int64_t)l->line - line);
			line = l->line;
		}
		trec_buf_u8(b, DW_LNS_copy);
	}
	if (in_seq) { /* no final gap: end one byte after the last row */
		trec_buf_u8(b, DW_LNS_advance_pc);
		trec_buf_varint(b, 1);
		trec_buf_u8(b, 0);
		trec_buf_varint(b, 1);
		trec_buf_u8(b, DW_LNE_end_sequence);
	}
}

int trec_archive_dwarf(const struct trec_arc_tables *t, uint64_t lo, uint64_t hi,
		       struct trec_buf *info, struct trec_buf *abbrev, struct trec_buf *line)
{
	unsigned asize = t->elf_class == ELFCLASS32 ? 4 : 8;
	uint32_t *dwfile = calloc(t->num_strings + 1, sizeof(*dwfile));
	if (!dwfile)
		return -1;
	for (size_t i = 0; i < t->num_lines; i++)
		if (t->lines[i].file)
			dwfile[t->lines[i].file - 1] = 1;
	uint32_t next = 1;
	for (size_t i = 0; i < t->num_strings; i++)
		if (dwfile[i])
			dwfile[i] = next++;

	/* .debug_line: unit_length and header_length are patched in after. */
	struct trec_buf hdr = { 0 }, prog = { 0 };
	line_header(&hdr, t, dwfile);
	line_program(&prog, t, dwfile, asize);
	put_le(line, 2 + 4 + hdr.len + prog.len, 4);
	put_le(line, 4, 2);
	put_le(line, hdr.len, 4);
	trec_buf_put(line, hdr.data, hdr.len);
	trec_buf_put(line, prog.data, prog.len);
	int oom = hdr.oom || prog.oom;
	trec_buf_free(&hdr);
	trec_buf_free(&prog);
	free(dwfile);

	/* One CU without children: name, stmt_list 0, low_pc, high_pc as length. */
	static const uint8_t abbrevs[] = {
		1, DW_TAG_compile_unit, DW_CHILDREN_no,
		DW_AT_name, DW_FORM_string,
		DW_AT_stmt_list, DW_FORM_sec_offset,
		DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_data8,
		0, 0,
		0,
	};
	trec_buf_put(abbrev, abbrevs, sizeof(abbrevs));
	static const char cu_name[] = "trec-embedded-symbols";
	put_le(info, 2 + 4 + 1 + 1 + sizeof(cu_name) + 4 + asize + 8, 4);
	put_le(info, 4, 2);
	put_le(info, 0, 4); /* abbrev offset */
	put_le(info, asize, 1);
	trec_buf_u8(info, 1);
	put_str(info, cu_name);
	put_le(info, 0, 4);
	put_le(info, lo, asize);
	put_le(info, hi - lo, 8);
	return oom || info->oom || abbrev->oom || line->oom ? -1 : 0;
}
