// SPDX-License-Identifier: MIT
/*
 * treport internals on a model built in memory: kernel symbol lookup from
 * an unsorted snapshot, mapping history by time, stack and sample
 * aggregation, the time filter, demangling, error names, option parsing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols/demangle.h"
#include "report/symbols/ksyms.h"
#include "report/model.h"
#include "report/cli.h"
#include "report/symbols/symbolize.h"

static int failures;

static void check(int ok, const char *name)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void test_ksyms(void)
{
	struct rp_model m;
	rp_model_init(&m);
	uint32_t rec = rp_model_add_recording(&m, "x.tr");
	const struct trec_ksym syms[] = {
		{ 0xffffffff81000300, 'T', "c", "" },
		{ 0xffffffff81000100, 't', "a", "" },
		{ 0xffffffff81000200, 'd', "data", "" },
		{ 0xffffffff81000100, 'T', "a_alias", "" },
		{ 0xffffffffc0000000, 't', "m", "mod" },
		{ 0, 'T', "zero", "" },
	};
	struct trec_ksyms k = { 1, 6, syms };
	rp_ksyms_set(&m, rec, &k);
	const struct rp_recording *r = &m.recs[rec];
	check(r->nksyms == 3, "ksyms: data, alias and zero-address entries dropped");
	const struct rp_ksym *s = rp_ksyms_lookup(r, 0xffffffff81000250);
	check(s && !strcmp(rp_str(&m.strs, s->name), "a"), "ksyms: data symbol does not split a function");
	s = rp_ksyms_lookup(r, 0xffffffff81000300);
	check(s && !strcmp(rp_str(&m.strs, s->name), "c"), "ksyms: exact start");
	check(rp_ksyms_lookup(r, 0xffffffff810000ff) == NULL, "ksyms: below the first symbol");
	s = rp_ksyms_lookup(r, 0xffffffffc0000010);
	check(s && !strcmp(rp_str(&m.strs, s->module), "[mod]"), "ksyms: module name in brackets");
	check(rp_ksyms_lookup(r, 0xffffffffc0000000 + RP_KSYM_LAST_SPAN) == NULL,
	      "ksyms: the last symbol does not cover everything above it");
	struct trec_ksyms older = { 0, 1, syms };
	rp_ksyms_set(&m, rec, &older);
	check(m.recs[rec].nksyms == 3, "ksyms: an older snapshot does not replace a newer one");
	rp_model_free(&m);
}

static void test_mappings(void)
{
	struct rp_model m;
	rp_model_init(&m);
	uint32_t rec = rp_model_add_recording(&m, "x.tr");
	/* first a snapshot with nothing valid in it (a damaged file's): the
	 * model has no mapping array yet (UBSan: qsort of NULL) */
	struct trec_mapping bad[] = { { .start = 0x9000, .end = 0x1000, .path = "reversed" } };
	struct trec_mapping_snapshot none = { .time_ns = 1, .pid = 99, .num_mappings = 1, .mappings = bad };
	rp_model_add_snapshot(&m, rec, &none);
	check(m.nmaps == 0, "a snapshot of no valid mapping adds none");
	struct trec_mapping a[] = {
		{ .start = 0x2000, .end = 0x3000, .file_id = 2, .path = "b" },
		{ .start = 0x1000, .end = 0x2000, .file_id = 1, .path = "a" },
		{ .start = 0x1800, .end = 0x2800, .file_id = 9, .path = "overlap" },
		{ .start = 0x5000, .end = 0x5000, .file_id = 8, .path = "empty" },
	};
	struct trec_mapping b[] = {
		{ .start = 0x1000, .end = 0x2000, .file_id = 3, .path = "c" },
		{ .start = 0x6000, .end = 0x7000, .file_id = 4, .path = "dlopened" },
	};
	struct trec_mapping_snapshot later = { 200, 7, 2, b }, first = { 100, 7, 4, a };
	rp_model_add_snapshot(&m, rec, &later); /* out of time order on purpose */
	rp_model_add_snapshot(&m, rec, &first);
	const struct rp_mapping *mp = rp_model_find_mapping(&m, rec, 7, 150, 0x1fff);
	check(mp && mp->file_id == 1, "mappings: snapshot in force at the time");
	mp = rp_model_find_mapping(&m, rec, 7, 150, 0x2000);
	check(mp && mp->file_id == 2, "mappings: end is exclusive");
	check(rp_model_find_mapping(&m, rec, 7, 150, 0x5000) == NULL, "mappings: empty range dropped");
	mp = rp_model_find_mapping(&m, rec, 7, 250, 0x1800);
	check(mp && mp->file_id == 3, "mappings: a later snapshot replaces the earlier");
	mp = rp_model_find_mapping(&m, rec, 7, 50, 0x1800);
	check(mp && mp->file_id == 1, "mappings: before the first snapshot, the first is used");
	check(rp_model_find_mapping(&m, rec, 8, 150, 0x1800) == NULL, "mappings: unknown pid");
	mp = rp_model_find_mapping(&m, rec, 7, 150, 0x6100);
	check(mp && mp->file_id == 4,
	      "mappings: a pc the snapshot in force lacks is found in a later one (sampled before the sync)");
	mp = rp_model_find_mapping(&m, rec, 7, 250, 0x2800);
	check(mp && mp->file_id == 2, "mappings: ... or else in an earlier one");
	check(rp_model_find_mapping(&m, rec, 7, 150, 0x9000) == NULL, "mappings: in none: NULL");
	rp_model_free(&m);
}

static void test_aggregation(void)
{
	struct rp_model m;
	rp_model_init(&m);
	m.keep_events = true;
	uint32_t rec = rp_model_add_recording(&m, "x.tr");
	m.recs[rec].min_ns = 1000;
	struct rp_frame f1[] = { { 0, 0xffffffff81000000, 4, 0 }, { 1, 0x10, 3, 0 }, { 1, 0x20, 3, 2 } };
	struct rp_frame f2[] = { { 0, 0xffffffff81000000, 4, 0 }, { 1, 0x10, 3, 0 }, { 1, 0x20, 3, 0 } };
	uint32_t s1 = rp_model_intern_stack(&m, f1, 1, 2);
	uint32_t s1b = rp_model_intern_stack(&m, f1, 1, 2);
	uint32_t s2 = rp_model_intern_stack(&m, f2, 1, 2);
	uint32_t s3 = rp_model_intern_stack(&m, f1, 0, 3); /* same frames, other split */
	check(s1 == s1b && s1 != s2 && s1 != s3 && m.nstacks == 3, "stacks: interned by frames, flags and split");
	rp_model_add_sample(&m, rec, 1, 1, "a", s1, 1000, 0, 1, false);
	rp_model_add_sample(&m, rec, 1, 1, "a", s1, 2000000000, 0, 2, false);
	rp_model_add_sample(&m, rec, 1, 2, "a", s1, 3000000000, 0, 1, false);
	rp_model_add_sample(&m, rec, 1, 1, "b", s1, 4000000000, 0, 1, false);
	check(m.naggs == 3 && m.aggs[0].count == 3 && m.total_samples == 5,
	      "samples: aggregated by (pid, tid, comm, stack) with weights");
	rp_model_filter_time(&m, 1500000000, 3000000000, false);
	/* relative times 0, 2 s, 3 s, 4 s (minus 1 us): the middle two are kept */
	check(m.total_samples == 3 && m.aggs[0].count == 2 && m.aggs[1].count == 1 &&
	      m.aggs[2].count == 0 && m.nevents == 2,
	      "time filter: relative to the recording start, inclusive");
	rp_model_free(&m);

	/* waits: each keeps its part inside the range, not all or nothing */
	rp_model_init(&m);
	m.keep_events = true;
	rec = rp_model_add_recording(&m, "w.tr");
	m.recs[rec].min_ns = 1000;
	s1 = rp_model_intern_stack(&m, f1, 1, 2);
	rp_model_add_sample(&m, rec, 1, 1, "a", s1, 1000 + 500000000, 0, 1800000000, true);
	rp_model_add_sample(&m, rec, 1, 1, "a", s1, 1000 + 2500000000ULL, 0, 100, true);
	rp_model_add_sample(&m, rec, 1, 2, "a", s1, 1000 + 1200000000, 0, 1, false);
	rp_model_filter_time(&m, 1000000000, 2000000000, false);
	/* the 0.5-2.3 s wait: 1-2 s of it, from 1 s; the 2.5 s one: out */
	check(m.nevents == 2 && m.events[0].weight == 1000000000 &&
	      m.events[0].time_ns == 1000 + 1000000000 && m.recs[rec].offcpu_kept == 1 &&
	      m.recs[rec].samples_kept == 1 && m.total_samples == 1000000001,
	      "time filter: a wait is cut to the range");
	rp_model_free(&m);
}

static void test_demangle(void)
{
	char buf[256];
	check(rp_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", buf, sizeof(buf)) &&
	      !strcmp(buf, "std::vector<int, std::allocator<int> >::push_back"),
	      "demangle: C++ without parameters");
	check(rp_demangle("_ZN12_GLOBAL__N_13barEv", buf, sizeof(buf)) &&
	      !strcmp(buf, "(anonymous namespace)::bar"), "demangle: anonymous namespace");
	check(rp_demangle("_ZN4core3fmt5write17h0123456789abcdefE", buf, sizeof(buf)) &&
	      !strcmp(buf, "core::fmt::write"), "demangle: Rust legacy");
	check(rp_demangle("_RNvCs15kBYyAo9fc_7mycrate7example", buf, sizeof(buf)) &&
	      !strcmp(buf, "mycrate::example"), "demangle: Rust v0");
	check(!rp_demangle("main", buf, sizeof(buf)) && !strcmp(buf, "main"), "demangle: C name unchanged");
	check(!rp_demangle("_Zgarbage", buf, sizeof(buf)) && !strcmp(buf, "_Zgarbage"),
	      "demangle: invalid mangling unchanged");
	rp_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", buf, 8);
	check(strlen(buf) == 7, "demangle: truncated to the buffer");
}

static int parse(struct rp_options *o, const char *const *args, int n)
{
	char *argv[16];
	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	argv[n] = NULL;
	return rp_options_parse(n, argv, o);
}

static void test_options(void)
{
	struct rp_options o;
	const char *a1[] = { "treport", "x.tr", "--folded", "--pid", "1,2", "--time", "1.5,", "y.tr",
			     "--comm", "busy,sh", "--debug-dir", "/d" };
	check(parse(&o, a1, 12) == 0 && o.output == RP_OUT_FOLDED && o.npids == 2 && o.pids[1] == 2 &&
	      o.time_start_ns == 1500000000 && o.time_end_ns == UINT64_MAX && o.ninputs == 2 &&
	      o.ncomms == 2 && !strcmp(o.comms[1], "sh") && !strcmp(o.debug_dirs[0], "/d") &&
	      !strcmp(o.debug_dirs[1], "/usr/lib/debug") && !o.debug_dirs[2],
	      "options: outputs, lists, open time range, inputs after options");
	const char *a2[] = { "treport", "x.tr", "--pid", "4294967296" };
	check(parse(&o, a2, 4) < 0, "options: pid out of range");
	const char *a3[] = { "treport", "x.tr", "--time", ",2" };
	check(parse(&o, a3, 4) == 0 && o.time_start_ns == 0 && o.time_end_ns == 2000000000,
	      "options: --time ,END");
}

int main(void)
{
	test_ksyms();
	test_mappings();
	test_aggregation();
	test_demangle();
	test_options();
	check(rp_error_name(4003) && !strcmp(rp_error_name(4003), "NATIVE_STACK_DELTA_INVALID") &&
	      rp_error_name(12345) == NULL, "error names from trec_errors.h");
	return failures ? 1 : 0;
}
