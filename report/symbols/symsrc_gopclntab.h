/* SPDX-License-Identifier: MIT */
/*
 * Go's .gopclntab for the local ELF source (symbolize_elf.c): the names,
 * lines and inlined calls of a Go binary's Go text, which a stripped build
 * keeps with no .symtab and no DWARF (and which this libdw cannot look up
 * by address in Go's DWARF, written without .debug_aranges). The same
 * table and rule as the archives trecord embeds (FORMAT.md, Go binaries).
 */
#ifndef RP_SYMSRC_GOPCLNTAB_H
#define RP_SYMSRC_GOPCLNTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <gelf.h>

#include "report/symbols/symsrc.h"

struct gopclntab;

/* The table of elf, or NULL if it has none (elf must outlive it). */
struct gopclntab *rp_gopclntab_open(Elf *elf);
void rp_gopclntab_close(struct gopclntab *g);
/* For an address in the Go text: fills res's frames from the table (and
 * its symbol if res has none yet). Returns false outside the Go text. */
bool rp_gopclntab_lookup(struct gopclntab *g, uint64_t addr, struct rp_symres *res);

#endif /* RP_SYMSRC_GOPCLNTAB_H */
