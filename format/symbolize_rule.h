/* SPDX-License-Identifier: MIT */
/*
 * The rules by which treport turns a user frame into an address to look up
 * in a file. trecord follows the same rules when it chooses what to embed
 * (archive_touched.c): an archive that kept less than treport reads would
 * symbolize differently from a full one. The rule for which symbol holds
 * an address is trec_arc_symbol_holding() (trec_archive.h).
 */
#ifndef TREC_SYMBOLIZE_RULE_H
#define TREC_SYMBOLIZE_RULE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "trec_types.h"

/* Kernel, Python and error frames are named without any ELF file. */
static inline bool trec_frame_is_native(uint8_t kind, uint8_t flags)
{
	return !(flags & TREC_FRAME_F_ERROR) && kind != TREC_FRAME_KERNEL &&
	       kind != TREC_FRAME_PYTHON;
}

/* A native frame whose addr is a runtime pc (no file was known when it
 * was taken): treport maps it through the pid's mapping snapshots. */
static inline bool trec_frame_is_absolute(uint8_t kind, uint8_t flags, uint64_t file_id)
{
	return trec_frame_is_native(kind, flags) && ((flags & TREC_FRAME_F_ABSOLUTE) || !file_id);
}

/* The address to look up: a return address points after its call, and may
 * be the first byte of the next function. */
static inline uint64_t trec_frame_lookup_addr(uint64_t addr, uint8_t flags)
{
	return addr - ((flags & TREC_FRAME_F_RETURN_ADDRESS) && addr ? 1 : 0);
}

#endif /* TREC_SYMBOLIZE_RULE_H */
