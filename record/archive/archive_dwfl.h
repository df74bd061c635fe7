/* SPDX-License-Identifier: MIT */
/* Internal to the archive encoder: its libdwfl side, shared by arc_collect
 * and the symbol cache's unit collection (archive_units.c). */
#ifndef TREC_RECORD_ARCHIVE_DWFL_H
#define TREC_RECORD_ARCHIVE_DWFL_H

#include <elfutils/libdwfl.h>

#include "record/archive/archive_build.h"

/* The ELF file at path as an offline libdwfl module at its own vaddrs, or
 * NULL with *err (a negative errno; -ENOEXEC: not ELF). dwfl_end(*dwfl)
 * in both cases. */
Dwfl_Module *arc_open(const char *path, Dwfl **dwfl, int *err);
/* One CU's line rows and inlined calls into b, as level full and sampled
 * collect them (cubias from libdw, bias the module's). */
void arc_collect_cu(struct arc_builder *b, Dwarf_Die *cu, Dwarf_Addr cubias, GElf_Addr bias);

#endif /* TREC_RECORD_ARCHIVE_DWFL_H */
