/* SPDX-License-Identifier: MIT */
/*
 * Function names both programs derive from an ELF file, so that trecord's
 * embedded archives and treport's local-file source name an address alike:
 * which of several symbols at one address names it (perf's rule), and the
 * NAME@plt symbols of PLT stubs, which no symbol table holds.
 */
#ifndef TREC_ELF_NAMES_H
#define TREC_ELF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* A symbol at an address, as the alias rule sees it. bind is enum
 * trec_arc_bind (format/archive/trec_archive.h). */
struct trec_sym_alias {
	uint64_t size;
	uint8_t bind;
	const char *name;
};

/* STB_* -> enum trec_arc_bind (STB_GNU_UNIQUE counts as global). */
uint8_t trec_sym_bind(int stb);

/*
 * < 0 if a names the address rather than b, > 0 for b, 0 for a tie (the
 * caller keeps the earlier symbol-table entry). perf's choose_best_symbol
 * (tools/perf/util/symbol.c): sized over unsized, then not weak over weak,
 * then global over local, then fewer leading underscores, then the longer
 * name. A total order, so it also sorts.
 */
int trec_sym_alias_cmp(const struct trec_sym_alias *a, const struct trec_sym_alias *b);

/* One synthesized PLT symbol: name is valid only during the call. */
typedef void (*trec_plt_sym_fn)(void *ctx, uint64_t addr, uint64_t size, const char *name);

/*
 * The PLT stubs of elf (x86-64: .plt, .plt.sec, .plt.got), named
 * "NAME@plt" as objdump and perf name them: each stub's `jmp *GOT(%rip)`
 * leads to a GOT slot, whose relocation (.rela.plt or .rela.dyn) names the
 * symbol. A .plt whose first entry is no such stub (the lazy-binding
 * header; with IBT every .plt entry) also gets a ".plt" symbol over the
 * whole section, as perf has. Sections of type NOBITS (a separate debug
 * file) give nothing. Returns the number of symbols given to fn.
 */
size_t trec_plt_symbols(Elf *elf, trec_plt_sym_fn fn, void *ctx);

#endif /* TREC_ELF_NAMES_H */
