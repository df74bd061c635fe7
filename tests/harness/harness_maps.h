/* SPDX-License-Identifier: MIT */
/* The harness's per-case maps, filled by trecord's own code (harness_maps.c). */
#ifndef HARNESS_MAPS_H
#define HARNESS_MAPS_H

#include "record/unwind/delta_loader.h"
#include "record/procs/file_id.h"
#include "harness_case.h"
#include "harness_php.h"
#include "harness_python.h"
#include "harness_perl.h"
#include "harness_ruby.h"
#include "record/procs/lpm.h"
#include "record/procs/pid_sync.h"
#include "record/unwind/unwind_tables.h"
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct known_file {
	uint64_t file_id;
	char *path;
	Dwfl *dwfl; /* offline, at the ELF's own addresses */
	Dwfl_Module *mod;
};

struct harness {
	int verbose;
	size_t cases, passed, frames_compared, frames_unverified, live_syncs;
	size_t py_cases, py_passed, py_frames;
	size_t php_cases, php_passed, php_frames;
	size_t pl_cases, pl_passed, pl_frames;
	uint32_t max_deltas, max_infos; /* store usage, over all cases */
	size_t replayed, refused, map_refused, quiet; /* harness_replay.c's checks */
	size_t any_words, any_replayed;
	size_t deltas, lost_bases; /* harness_delta.c's */
};

/* The maps of one case. */
struct case_maps {
	struct harness_env env;
	struct trec_delta_store *store;   /* case-file path only */
	struct trec_delta_loader *loader; /* pid-sync path only */
	struct known_file *files;
	size_t num_files;
	struct harness_py *py; /* cases with a core dump only */
	struct harness_php *php; /* likewise */
	struct harness_perl *perl; /* the same */
	struct harness_rb *rb; /* likewise */
};


struct known_file *file_by_id(struct case_maps *cm, uint64_t file_id);
const char *symbolize(const struct known_file *f, uint64_t vaddr);
int maps_from_pid_sync(struct case_maps *cm, uint32_t pid, uint32_t *deltas,
			      uint32_t *infos);
int maps_from_case(struct case_maps *cm, const struct harness_case *c, uint32_t *deltas,
			  uint32_t *infos);
void case_maps_free(struct case_maps *cm);

#endif /* HARNESS_MAPS_H */
