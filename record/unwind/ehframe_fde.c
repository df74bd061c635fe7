// SPDX-License-Identifier: MIT
/*
 * Walks the FDEs of one CFI section and turns each CFI table row into a
 * trec_row.
 *
 * libdw gives us the FDE list (dwarf_next_cfi) and, per address, the
 * fully evaluated row (dwarf_cfi_addrframe: CIE initial instructions,
 * remember/restore_state, the ABI defaults) with the exact range the row
 * is valid for. That range lets us step row by row instead of byte by byte.
 * The one thing libdw does not expose is the decoded FDE address range,
 * so the pointer encoding of initial_location/address_range is decoded
 * here (DW_EH_PE_*, from the CIE's 'R' augmentation).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include "record/unwind/ehframe.h"

/* DW_EH_PE_* pointer encodings (not all are in dwarf.h everywhere). */
enum {
	PE_absptr = 0x00, PE_uleb128 = 0x01, PE_udata2 = 0x02, PE_udata4 = 0x03,
	PE_udata8 = 0x04, PE_sleb128 = 0x09, PE_sdata2 = 0x0a, PE_sdata4 = 0x0b,
	PE_sdata8 = 0x0c, PE_pcrel = 0x10, PE_indirect = 0x80, PE_omit = 0xff,
};

struct cursor {
	const uint8_t *p, *end;
};

static bool read_uleb(struct cursor *c, uint64_t *v)
{
	unsigned shift = 0;
	*v = 0;
	while (c->p < c->end && shift < 64) {
		uint8_t b = *c->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool read_sleb(struct cursor *c, int64_t *v)
{
	unsigned shift = 0;
	uint64_t r = 0;
	uint8_t b = 0x80;
	while (c->p < c->end && shift < 64 && (b & 0x80)) {
		b = *c->p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		return false;
	if (shift < 64 && (b & 0x40))
		r |= ~0ULL << shift;
	*v = (int64_t)r;
	return true;
}

static bool read_fixed(struct cursor *c, size_t size, uint64_t *v)
{
	if ((size_t)(c->end - c->p) < size)
		return false;
	uint8_t b[8] = { 0 };
	memcpy(b, c->p, size); /* x86-64 is little-endian, like its ELF files */
	c->p += size;
	uint64_t r = 0;
	for (size_t i = 0; i < size; i++)
		r |= (uint64_t)b[i] << (8 * i);
	*v = r;
	return true;
}

/* Decodes one encoded pointer; field_vaddr is the vaddr of its first byte. */
static bool read_encoded(struct cursor *c, uint8_t enc, uint64_t field_vaddr, uint64_t *v)
{
	uint64_t u = 0;
	int64_t s = 0;
	bool ok;

	if (enc == PE_omit || (enc & PE_indirect))
		return false;
	switch (enc & 0x0f) {
	case PE_absptr: ok = read_fixed(c, 8, &u); break;
	case PE_uleb128: ok = read_uleb(c, &u); break;
	case PE_udata2: ok = read_fixed(c, 2, &u); break;
	case PE_udata4: ok = read_fixed(c, 4, &u); break;
	case PE_udata8: ok = read_fixed(c, 8, &u); break;
	case PE_sleb128: ok = read_sleb(c, &s); u = (uint64_t)s; break;
	case PE_sdata2: ok = read_fixed(c, 2, &u); u = (uint64_t)(int64_t)(int16_t)u; break;
	case PE_sdata4: ok = read_fixed(c, 4, &u); u = (uint64_t)(int64_t)(int32_t)u; break;
	case PE_sdata8: ok = read_fixed(c, 8, &u); break;
	default: return false;
	}
	if (!ok)
		return false;
	switch (enc & 0x70) {
	case 0: break;
	case PE_pcrel: u += field_vaddr; break;
	default: return false; /* textrel/datarel/funcrel: not used in FDEs on x86-64 */
	}
	*v = u;
	return true;
}

/* The FDE pointer encoding from a CIE's augmentation ("zR", "zPLR", ...). */
static bool cie_fde_encoding(const Dwarf_CIE *cie, bool eh_frame, uint8_t *enc)
{
	const char *aug = cie->augmentation;
	*enc = PE_absptr;
	if (!aug || aug[0] != 'z')
		return !aug || aug[0] == '\0' || !eh_frame;
	struct cursor c = { cie->augmentation_data,
			    cie->augmentation_data + cie->augmentation_data_size };
	for (const char *a = aug + 1; *a; a++) {
		uint64_t ignored;
		switch (*a) {
		case 'R':
			if (c.p >= c.end)
				return false;
			*enc = *c.p++;
			return true;
		case 'P': {
			if (c.p >= c.end)
				return false;
			uint8_t penc = *c.p++;
			/* Its value is not needed; any base works for skipping. */
			if (!read_encoded(&c, penc & 0x0f, 0, &ignored))
				return false;
			break;
		}
		case 'L':
			if (c.p >= c.end)
				return false;
			c.p++;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return true;
}

bool trec_exec_contains(const struct trec_exec_ranges *x, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < x->n; i++)
		if (lo >= x->lo[i] && hi <= x->hi[i])
			return true;
	return false;
}

/* Appends the rows of the FDE covering [lo, hi). */
static int fde_rows(Dwarf_CFI *cfi, uint64_t lo, uint64_t hi, bool arm64, struct trec_rows *out,
		    size_t *unsupported)
{
	uint64_t addr = lo;
	while (addr < hi) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr start, end;
		bool signal;

		if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
			return 0; /* libdw rejected this FDE: leave the rest uncovered */
		dwarf_frame_info(frame, &start, &end, &signal);
		struct trec_row row;
		if (!(arm64 ? trec_rule_from_frame_arm64(frame, &row)
			    : trec_rule_from_frame(frame, &row)))
			(*unsupported)++;
		free(frame);
		if (end <= addr) /* malformed: never loop */
			return 0;
		row.start = addr;
		row.end = end < hi ? end : hi;
		if (trec_rows_push(out, &row) != 0)
			return -ENOMEM;
		addr = row.end;
	}
	return 0;
}

int trec_cfi_rows(Elf *elf, Dwarf_CFI *cfi, Elf_Scn *scn, bool eh_frame,
		  const struct trec_exec_ranges *exec, struct trec_rows *out,
		  size_t *fdes, size_t *unsupported)
{
	GElf_Shdr shdr;
	Elf_Data *data = elf_getdata(scn, NULL);
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!data || !ident || !gelf_getshdr(scn, &shdr) || !data->d_buf)
		return 0;

	/* Most FDEs share one CIE: remember the last one's encoding. */
	Dwarf_Off cie_off = (Dwarf_Off)-1;
	uint8_t enc = PE_absptr;
	bool cie_ok = false;

	Dwarf_Off off = 0, next;
	for (;;) {
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi(ident, data, eh_frame, off, &next, &e);
		if (r == 1)
			break;
		if (r != 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (e.fde.CIE_pointer != cie_off) {
			Dwarf_CFI_Entry ce;
			Dwarf_Off ignored;
			cie_off = e.fde.CIE_pointer;
			cie_ok = dwarf_next_cfi(ident, data, eh_frame, cie_off, &ignored, &ce) == 0 &&
				 dwarf_cfi_cie_p(&ce) && cie_fde_encoding(&ce.cie, eh_frame, &enc);
		}
		if (!cie_ok)
			continue;

		struct cursor c = { e.fde.start, e.fde.end };
		uint64_t field = shdr.sh_addr + (uint64_t)(e.fde.start - (const uint8_t *)data->d_buf);
		uint64_t lo, len;
		if (!read_encoded(&c, enc, field, &lo) || !read_encoded(&c, enc & 0x0f, 0, &len))
			continue;
		if (len == 0 || lo + len < lo || !trec_exec_contains(exec, lo, lo + len))
			continue; /* empty, or a discarded function's leftover FDE */
		(*fdes)++;
		int err = fde_rows(cfi, lo, lo + len, trec_elf_is_arm64(elf), out, unsupported);
		if (err)
			return err;
	}
	return 0;
}
