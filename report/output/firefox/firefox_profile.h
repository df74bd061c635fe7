/* SPDX-License-Identifier: MIT */
/*
 * The Firefox Profiler export's tables while they are built
 * (output_firefox.c) and written as JSON (firefox_write.c).
 */
#ifndef RP_FIREFOX_PROFILE_H
#define RP_FIREFOX_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "report/output/json_writer.h"
#include "report/output/keytab.h"
#include "report/output/output.h"

#define PROCESSED_VERSION 70
#define GECKO_VERSION 36 /* informational (meta.version) */

enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_PYTHON, CAT_JIT, CAT_ERROR, CAT_PERL, CAT_RUBY, CAT_PHP, NCAT };

struct ff_th {
	uint32_t rec, pid, tid;
	uint32_t name; /* model string id */
	uint32_t *stack; /* stack index, UINT32_MAX: none */
	uint64_t *time, *weight;
	size_t n, cap, capt, capw;
	uint32_t *markers; /* indexes into model pid_events */
	size_t nmarkers, capmarkers;
};

struct ff_frame {
	int64_t address; /* -1: none */
	int32_t lib;     /* -1: none */
	uint8_t depth, cat;
	uint32_t func, line; /* line 0: unknown */
};

struct ff {
	const struct rp_report *r;
	struct rp_model *m;
	struct rp_keytab strs;      /* model string id -> stringArray index */
	struct rp_keytab libs;      /* file id */
	struct rp_keytab resources; /* (kind, key): kind 1 lib, 2 kernel dso, 3 source, 4 other */
	uint32_t *res_name;         /* string index */
	uint8_t *res_type;
	size_t capres_name, capres_type;
	struct rp_keytab sources; /* filename string index */
	struct rp_keytab funcs;   /* (name, resource + 1, source + 1) */
	struct rp_keytab frames;  /* (sym id, depth) */
	struct ff_frame *fr;
	size_t capfr;
	struct rp_keytab stacks;  /* (prefix + 1, frame) */
	struct rp_keytab threads; /* (rec, pid, tid) */
	struct ff_th *th;
	size_t capth;
	uint32_t *agg_stack; /* per aggregate: stack + 2, 1: empty, 0: not yet */
	uint32_t *syms;
	size_t capsyms;
	uint64_t zero_ns; /* meta.startTime, CLOCK_REALTIME */
};

/* The stringArray index of a model string, or of a C string. */
uint32_t ff_str(struct ff *f, uint32_t model_id);
uint32_t ff_cstr(struct ff *f, const char *s);
/* The time of a sample of recording rec from meta.startTime, in ns. */
uint64_t ff_rel_ns(const struct ff *f, uint32_t rec, uint64_t t);
struct ff_th *ff_thread(struct ff *f, uint32_t rec, uint32_t pid, uint32_t tid, bool create);

/* The whole profile; order: the threads in the order to write them. */
void ff_write(struct ff *f, struct rp_jw *j, const uint32_t *order, uint64_t end_ns);

#endif /* RP_FIREFOX_PROFILE_H */
