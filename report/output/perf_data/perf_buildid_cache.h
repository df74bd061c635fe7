/* SPDX-License-Identifier: MIT */
/*
 * The symbols of a perf.data export, laid out as perf's build-id cache
 * (what `perf archive` packs and ~/.debug holds), so that perf names the
 * frames on a machine without the recorded binaries:
 *
 *   DIR/.build-id/xx/yyyy...        -> ../../PATH/BUILDID
 *   DIR/PATH/BUILDID/debug          an embedded archive as an ELF debug file
 *                                   (report/archive/archive_elf.c), or a
 *                                   synthetic DSO's symbols
 *   DIR/[kernel.kallsyms]/KBID/kallsyms   the recording's kernel symbols
 */
#ifndef RP_PERF_BUILDID_CACHE_H
#define RP_PERF_BUILDID_CACHE_H

#include <stdint.h>

#include "report/output/output.h"
#include "report/output/perf_data/perf_data_layout.h"

/* A build-id for the recording's kernel symbols (a hash of them: the real
 * one is not recorded), so perf reads them from the cache rather than
 * from the running kernel. */
void pd_kernel_build_id(const struct rp_recording *rec, uint8_t out[20]);

/* Writes the cache for the DSOs of l and, unless kernel_text is 0, the
 * kernel (kernel_text: the start of its map). 0, or -1 after printing why.
 * *files counts the files written. */
int pd_buildid_cache_write(const struct rp_report *r, const struct pd_layout *l, const char *dir,
			   const uint8_t kernel_id[20], uint64_t kernel_text, unsigned *files);

#endif /* RP_PERF_BUILDID_CACHE_H */
