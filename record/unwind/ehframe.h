/* SPDX-License-Identifier: MIT */
/*
 * Internals of stack-delta extraction (record/unwind/ehframe_*.c). The public
 * entry point is trec_deltas_extract() in unwind_tables.h.
 *
 * Extraction works on "rows": half-open address ranges with one rule,
 * gathered from several sources, then painted together by priority and
 * turned into the merged trec_delta_entry list.
 */
#ifndef TREC_EHFRAME_H
#define TREC_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "record/unwind/unwind_tables.h"

/* One rule over [start, end). command is 0 (use info) or a full command
 * value (TREC_UNWIND_COMMAND | enum trec_unwind_command). */
struct trec_row {
	uint64_t start, end;
	uint16_t command;
	struct trec_unwind_info info;
};

struct trec_rows {
	struct trec_row *v;
	size_t n, cap;
};

int trec_rows_push(struct trec_rows *r, const struct trec_row *row);
void trec_rows_free(struct trec_rows *r);
/* Sorts by start and drops the parts of rows that overlap an earlier row. */
void trec_rows_normalize(struct trec_rows *r);
/* out = hi + the parts of lo not covered by hi. hi and lo normalized. */
int trec_rows_paint(const struct trec_rows *hi, const struct trec_rows *lo,
		    struct trec_rows *out);
bool trec_row_same_rule(const struct trec_row *a, const struct trec_row *b);

/* The rule libdw computed for one CFI row, as a trec row (range not set).
 * Returns true if the rule is supported, false if it was made UNSUPPORTED.
 * x86-64 (ehframe_rule.c) and aarch64 (ehframe_rule_arm64.c). */
bool trec_rule_from_frame(Dwarf_Frame *frame, struct trec_row *row);
bool trec_rule_from_frame_arm64(Dwarf_Frame *frame, struct trec_row *row);
/* The ELF is for aarch64 (its CFI, PLT and trampolines are aarch64's). */
bool trec_elf_is_arm64(Elf *elf);
/* Expression pieces both rule files read: bregN/bregx -> (register,
 * offset); "saved at CFA + off" ([call_frame_cfa] [plus_uconst off]). */
bool trec_op_breg(const Dwarf_Op *op, unsigned *reg, int64_t *off);
bool trec_op_at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off);
/*
 * Pieces of both. trec_rule_start() clears row, then ends it as SIGNAL
 * (a signal frame's CFI) or STOP (return address undefined): 1, or as
 * UNSUPPORTED (the return address column is not ra_col): -1; else 0 with
 * the return address's rule in *ops and *n. trec_rule_fp(): the caller's fp
 * rule from DWARF register reg (rbp, x29). trec_rule_unsupported() marks
 * row UNSUPPORTED and returns false.
 */
int trec_rule_start(Dwarf_Frame *frame, unsigned ra_col, struct trec_row *row, Dwarf_Op mem[3],
		    Dwarf_Op **ops, size_t *n);
void trec_rule_fp(Dwarf_Frame *frame, unsigned reg, struct trec_unwind_info *info);
bool trec_rule_unsupported(struct trec_row *row);

/* Address ranges of the file's executable PT_LOAD segments. */
struct trec_exec_ranges {
	uint64_t lo[16], hi[16];
	size_t n;
};
bool trec_exec_contains(const struct trec_exec_ranges *x, uint64_t lo, uint64_t hi);

/*
 * Walks every FDE of one CFI section (.eh_frame if eh_frame, else
 * .debug_frame) and appends one row per CFI table row inside an executable
 * range. *fdes and *unsupported are incremented.
 */
int trec_cfi_rows(Elf *elf, Dwarf_CFI *cfi, Elf_Scn *scn, bool eh_frame,
		  const struct trec_exec_ranges *exec, struct trec_rows *out,
		  size_t *fdes, size_t *unsupported);

/*
 * FRAME_POINTER rows (and exact prologue rows) for the code between rows
 * that keeps a frame pointer: Go files, or gaps whose functions mostly
 * start with push %rbp; mov %rsp,%rbp (record/unwind/ehframe_gaps.c).
 * rows: normalized. out: normalized, disjoint from rows.
 */
int trec_fp_gap_rows(Elf *elf, const struct trec_exec_ranges *exec, const struct trec_rows *rows,
		     struct trec_rows *out);
/* Built by gc: a .gopclntab, .go.buildinfo or Go build-id section. */
bool trec_elf_is_go(Elf *elf);
/* The bytes of [lo, hi) in one executable section of elf (all of them in
 * the file), or NULL. */
const uint8_t *trec_elf_code_at(Elf *elf, uint64_t lo, uint64_t hi);
/* The rules of Go's roots and stack switches, from .gopclntab, into out
 * (normalized); none if the file has no readable table (go_roots.c). */
int trec_go_root_rows(Elf *elf, struct trec_rows *out);

/*
 * The separate debug file of elf, the binary at path (ehframe_debugfile.c):
 * by build-id under /usr/lib/debug, else by .gnu_debuglink. Returns its
 * open fd and its Elf in *out (the caller ends both), or -1.
 */
int trec_debugfile_open(Elf *elf, const char *path, Elf **out);

#endif /* TREC_EHFRAME_H */
