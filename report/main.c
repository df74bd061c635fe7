// SPDX-License-Identifier: MIT
/*
 * treport: reads trecord recordings, symbolizes their stacks offline and
 * writes a summary, folded stacks, perf script text, pprof, --info, a flame
 * graph, JSON Lines, or a diff of two recordings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/elf/debuginfod.h"
#include "report/archive/archive_extract.h"
#include "report/load.h"
#include "report/output/output.h"

/* -o naming one of the recordings read would replace it with the report. */
static bool output_is_input(const struct rp_options *o)
{
	struct stat out, in;

	if (!o->out_path || stat(o->out_path, &out))
		return false;
	for (int i = 0; i < o->ninputs; i++)
		if (strcmp(o->inputs[i], "-") && !stat(o->inputs[i], &in) &&
		    in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
			fprintf(stderr, "treport: -o %s is the recording %s: give another output\n",
				o->out_path, o->inputs[i]);
			return true;
		}
	return false;
}

static FILE *open_output(const struct rp_options *o)
{
	if (!o->out_path) {
		if (o->output == RP_OUT_PPROF && isatty(STDOUT_FILENO)) {
			fprintf(stderr, "treport: --pprof writes binary data: give -o FILE\n");
			return NULL;
		}
		return stdout;
	}
	FILE *f = fopen(o->out_path, o->output == RP_OUT_PPROF ? "wb" : "w");
	if (!f)
		fprintf(stderr, "treport: cannot write %s: %s\n", o->out_path, strerror(errno));
	return f;
}

/* Outputs that add the samples of merged recordings as equals say so when
 * they were taken at other rates; the summary weighs them by period, and
 * pprof, perf script and perf.data carry each sample's period. */
static void warn_mixed_periods(const struct rp_model *m, const struct rp_options *o)
{
	bool equal = o->diff ? !o->diff_normalize
			     : o->output == RP_OUT_FOLDED || o->output == RP_OUT_FLAMEGRAPH ||
				       o->output == RP_OUT_JSON || o->output == RP_OUT_FIREFOX;

	if (equal && o->event == RP_EVENT_CPU_CLOCK && rp_mixed_periods(m))
		fprintf(stderr, "treport: warning: the recordings were sampled at different rates: "
			"their samples are counted as equals here (%s; the summary and --pprof "
			"weigh them in CPU time)\n", o->diff ? "--normalize scales the base"
							 : "--event wall weighs them in time");
}

int main(int argc, char **argv)
{
	struct rp_options o;
	trec_debuginfod_set_prog("treport");
	int rc = rp_options_parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;

	if (output_is_input(&o))
		return 2;
	struct rp_model m;
	rp_model_init(&m);
	/* per-sample times are needed for perf script order and --time */
	bool export = o.output == RP_OUT_PERF_DATA || o.output == RP_OUT_FIREFOX;
	m.keep_events = o.output == RP_OUT_PERF_SCRIPT || export || o.time_set;
	int status = 0;
	/* and for --json, which writes each sample with its time */
	m.keep_events = m.keep_events || o.output == RP_OUT_JSON;
	for (int i = 0; i < o.ninputs; i++)
		if (rp_load_file(&m, o.inputs[i], &o) < 0)
			status = 1;
	if (status) {
		rp_model_free(&m);
		return status;
	}
	if (o.time_set)
		rp_model_filter_time(&m, o.time_start_ns, o.time_end_ns, o.event == RP_EVENT_WALL);

	warn_mixed_periods(&m, &o);

	if (o.extract_dir) {
		status = rp_extract_archives(&m, o.extract_dir) ? 1 : 0;
		rp_model_free(&m);
		return status;
	}
	struct rp_symopts so = {
		.demangle = !o.no_demangle,
		.inline_frames = !o.no_inline,
		.symfs = o.symfs,
		.debug_dirs = o.debug_dirs,
		.nsources = o.nsources,
	};
	memcpy(so.sources, o.sources, sizeof(so.sources));
	struct rp_symbolizer *s = rp_symbolizer_new(&m, &so);
	struct rp_report r = { &m, s, &o };
	if (export && !m.total_samples) {
		fprintf(stderr, "treport: nothing to export: no samples%s\n",
			o.npids || o.ntids || o.ncomms || o.time_set || o.user_only || o.kernel_only
				? " pass the filters" : " in the recording");
		status = 1;
		goto cleanup;
	}
	FILE *out = open_output(&o);
	if (!out) {
		status = 1;
		goto cleanup;
	}
	if (o.diff)
		status = rp_output_diff(&r, out);
	else switch (o.output) {
	case RP_OUT_SUMMARY: status = rp_output_summary(&r, out); break;
	case RP_OUT_FOLDED: status = rp_output_folded(&r, out); break;
	case RP_OUT_FLAMEGRAPH: status = rp_output_flamegraph(&r, out); break;
	case RP_OUT_JSON: status = rp_output_json(&r, out); break;
	case RP_OUT_PERF_SCRIPT: status = rp_output_perf_script(&r, out); break;
	case RP_OUT_PPROF: status = rp_output_pprof(&r, out); break;
	case RP_OUT_INFO: status = rp_output_info(&r, out); break;
	case RP_OUT_PERF_DATA: status = rp_output_perf_data(&r, out); break;
	case RP_OUT_FIREFOX: status = rp_output_firefox(&r, out); break;
	}
	status = status ? 1 : 0;
	/* a full disk or closed pipe must not look like success (an output
	 * that failed said why itself) */
	if ((fflush(out) != 0 || ferror(out)) && !status) {
		fprintf(stderr, "treport: writing %s failed: %s\n", o.out_path ? o.out_path : "stdout",
			strerror(errno));
		status = 1;
	}
	if (out != stdout && fclose(out) != 0 && !status) {
		fprintf(stderr, "treport: closing %s failed: %s\n", o.out_path, strerror(errno));
		status = 1;
	}
cleanup:
	rp_symbolizer_free(s);
	rp_model_free(&m);
	return status;
}
