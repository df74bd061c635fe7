/* SPDX-License-Identifier: MIT */
/* Reading recordings into the model, with the sample filters applied. */
#ifndef RP_LOAD_H
#define RP_LOAD_H

#include "report/model.h"
#include "report/cli.h"

/* Frames kept per stack side; deeper stacks lose their outermost frames. */
#define RP_MAX_STACK_FRAMES 4096

/*
 * Reads every record of path into m. Returns 0 on success (a truncated
 * file is a warning and still 0), -1 on an error (message printed, naming
 * the file offset). With o->force, corrupt chunks are skipped by the
 * reader and an error after some records still keeps what was read
 * (returns 0 with a warning).
 */
int rp_load_file(struct rp_model *m, const char *path, const struct rp_options *o);

/* Converts and filters one sample; exposed for the unit tests. */
void rp_load_sample(struct rp_model *m, uint32_t rec, const struct trec_sample *s,
		    const struct rp_options *o);

#endif /* RP_LOAD_H */
