/* SPDX-License-Identifier: MIT */
/* Kernel symbols from a recording's KSYMS snapshot. */
#ifndef RP_KSYMS_H
#define RP_KSYMS_H

#include "report/model.h"

/*
 * Stores the snapshot as the recording's kernel symbol table (a later
 * snapshot replaces an earlier one). Keeps text symbols only, sorts them
 * (the recording's order is not trusted) and drops duplicates.
 */
void rp_ksyms_set(struct rp_model *m, uint32_t rec, const struct trec_ksyms *k);

/*
 * The symbol covering addr: the last one starting at or below it. Kallsyms
 * has no sizes, so a symbol ends where the next begins; the last one is
 * given RP_KSYM_LAST_SPAN bytes.
 */
#define RP_KSYM_LAST_SPAN 0x100000
const struct rp_ksym *rp_ksyms_lookup(const struct rp_recording *r, uint64_t addr);

#endif /* RP_KSYMS_H */
