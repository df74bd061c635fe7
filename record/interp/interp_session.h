/* SPDX-License-Identifier: MIT */
/*
 * The session glue every interpreter backend needs: its unwinder's address
 * range into interpreter_offsets (loading the unwinder program first), its
 * per-pid entry in its own procs map, and its code records into the output.
 * A backend embeds one struct trec_interp_glue and hands its tables the
 * sink trec_interp_glue_sink() makes of it.
 */
#ifndef TREC_INTERP_SESSION_H
#define TREC_INTERP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "trec_types.h"
#include "trec_format.h"
#include "record/interp/interp_table.h"

struct trec_interp_env;
struct trec_output;
struct trec_bpf_loader;
struct trec_blob;

struct trec_interp_glue {
	struct trec_output *out;
	int procs_fd, ranges_fd;
	struct trec_bpf_loader *bpf; /* loads the unwinder before its first range */
	const char *lang;            /* for the warning: "no <lang> stacks" */
	unsigned warned;             /* its load failed: said once */
};

void trec_interp_glue_init(struct trec_interp_glue *g, const struct trec_interp_env *env,
			   int procs_fd, const char *lang);
/* The sink (interp_table.h) of these callbacks, with g as its ctx. */
struct trec_interp_sink trec_interp_glue_sink(struct trec_interp_glue *g);

/* ctx is the struct trec_interp_glue. 0 or a negative errno; -ENOENT when
 * the unwinder could not be loaded (warned once: its frames stay native). */
int trec_interp_glue_set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r);
/* info is the backend's procs map value. */
int trec_interp_glue_set_proc(void *ctx, uint32_t pid, const void *info);
void trec_interp_glue_del_proc(void *ctx, uint32_t pid);
int trec_interp_glue_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b);

/* The session state of a backend that is one interpreter table over the
 * glue (Perl, Ruby, PHP), with the table first for its on_* ops. */
struct trec_interp_table_session {
	struct trec_interp_table *table;
	struct trec_interp_glue glue; /* the table's sink's ctx */
};

/* As trec_interp_ops.start: the glue over procs_fd, the table make()
 * builds on the glue's sink. */
int trec_interp_table_session_start(void **state, const struct trec_interp_env *env,
				    int procs_fd, const char *lang,
				    struct trec_interp_table *(*make)(const struct trec_interp_sink *sink,
								      bool verbose));
void trec_interp_table_session_stop(void *state);

#endif /* TREC_INTERP_SESSION_H */
