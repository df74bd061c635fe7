/* SPDX-License-Identifier: MIT */
/*
 * Names of JIT code from the recording's JITSYMS records (FORMAT.md
 * §6.12): a frame whose pc no file explains is looked up in its pid's
 * tables read at or after the sample (jitdump before perf map); within a
 * table, the entry in force at the sample's time, the later one winning.
 * Names are kept verbatim, as perf shows them; the dso is what perf shows
 * for such frames: the perf map's path, or for jitdump the
 * DIR/jitted-PID-INDEX.so `perf inject --jit` writes beside the dump.
 */
#ifndef RP_JIT_JITSYMS_H
#define RP_JIT_JITSYMS_H

#include <stdint.h>

#include "trec_format.h"

struct rp_jit;
struct rp_strtab;

/* Keeps a record's entries in *jp (created on first use), strings
 * interned in strs, which must outlive it (the model's). */
void rp_jit_add(struct rp_jit **jp, struct rp_strtab *strs, uint32_t rec,
		const struct trec_jitsyms *j);
void rp_jit_free(struct rp_jit *j);

/*
 * The entry naming runtime pc addr of pid at time_ns: a non-zero key, or 0
 * if none does. Equal keys name a frame the same way (the symbolizer caches
 * by it).
 */
uint64_t rp_jit_key(struct rp_jit *j, uint32_t rec, uint32_t pid, uint64_t time_ns,
		    uint64_t addr);

struct rp_jit_hit {
	const char *name;
	uint64_t start;    /* of the code: the frame's offset is addr - start */
	const char *file;  /* source file of addr's line row, or NULL */
	uint32_t line;
	char dso[4200];
};

/* What key (from rp_jit_key) says of addr. */
void rp_jit_get(const struct rp_jit *j, uint64_t key, uint64_t addr, struct rp_jit_hit *h);

/* Tables and entries kept (treport --info). */
void rp_jit_counts(const struct rp_jit *j, uint32_t rec, uint64_t *tables, uint64_t *entries);

#endif /* RP_JIT_JITSYMS_H */
