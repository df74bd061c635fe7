/* SPDX-License-Identifier: MIT */
/* The output formats; each writes the whole model to one stream. */
#ifndef RP_OUTPUT_H
#define RP_OUTPUT_H

#include <stdio.h>

#include "report/model.h"
#include "report/cli.h"
#include "report/symbols/symbolize.h"

struct rp_report {
	struct rp_model *m;
	struct rp_symbolizer *s;
	const struct rp_options *o;
};

/* Each returns 0, or -1 after printing why (write errors included). */
int rp_output_folded(const struct rp_report *r, FILE *out);
int rp_output_flamegraph(const struct rp_report *r, FILE *out);
int rp_output_json(const struct rp_report *r, FILE *out);
/* --diff: recording 0 (base) against 1 (new), as a summary, folded or flame graph. */
int rp_output_diff(const struct rp_report *r, FILE *out);
int rp_output_perf_script(const struct rp_report *r, FILE *out);
int rp_output_pprof(const struct rp_report *r, FILE *out);
int rp_output_summary(const struct rp_report *r, FILE *out);
int rp_output_info(const struct rp_report *r, FILE *out);
/* Exports for other viewers: perf.data (+ its build-id cache beside
 * r->o->out_path) and the Firefox Profiler's processed format. */
int rp_output_perf_data(const struct rp_report *r, FILE *out);
int rp_output_firefox(const struct rp_report *r, FILE *out);

/* The command name to show: the sample's comm, or ":PID" like perf. */
void rp_comm_name(const struct rp_model *m, const struct rp_agg *a, char *buf, size_t len);

/* Frames of one aggregate, outermost first; *buf grows as needed. */
uint32_t rp_agg_syms(const struct rp_report *r, const struct rp_agg *a, uint32_t **buf,
		     size_t *cap);

/* The interpreter frames right after syms[k] (outermost first) when
 * syms[k] is a native frame with functions inlined at its pc, which is
 * then their interpreter loop (_PyEval_EvalFrameDefault with do_call_core
 * inlined): what is inlined runs for the innermost of them, so the outputs
 * put it above them all. 0 if not that shape. */
uint32_t rp_interp_run_after(const struct rp_report *r, const uint32_t *syms, uint32_t k,
			     uint32_t n);
/* Which of a symbol's lines an output writes there: all of them, its own
 * (outermost) only, or the functions inlined at its pc only. */
enum rp_lines { RP_LINES_ALL, RP_LINES_OWN, RP_LINES_INLINED, RP_LINES_KINDS };

/* Sample period in ns of a recording (from META freq_hz), 0 if unknown. */
uint64_t rp_period_ns(const struct rp_model *m, uint32_t rec);

/* Whether the kept cpu-clock samples come from recordings of different
 * periods (merged files of other rates or -c): one sample of one is not
 * worth one of another. */
bool rp_mixed_periods(const struct rp_model *m);

/* What an aggregate's count measures, for labels ("samples"; an event
 * weighed in time would say so here). */
const char *rp_weight_unit(const struct rp_report *r);
/* The selected event's perf name: cpu-clock or offcpu-time (or wall). */
const char *rp_event_name(const struct rp_options *o);

#endif /* RP_OUTPUT_H */
