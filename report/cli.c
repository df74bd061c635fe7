// SPDX-License-Identifier: MIT
/* treport's command line (see options.h). */
#include "report/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trec_format.h"

#define TREPORT_VERSION "0.1"

static const char usage[] =
	"usage: treport FILE.tr [FILE2.tr...] [options]\n"
	"\n"
	"Symbolizes trecord recordings offline. Several files are merged; '-' reads\n"
	"one from standard input (trecord -o - ... | treport -).\n"
	"\n"
	"Output (default: a summary of the top functions, like perf report):\n"
	"  --folded             folded stacks for flamegraph.pl: comm;root;...;leaf count\n"
	"  --flamegraph         an interactive SVG flame graph (zoom, search)\n"
	"  --json               JSON Lines, one sample per line with its frames\n"
	"  --perf-script        perf script text with callchains (speedscope, Firefox\n"
	"                       Profiler, stackcollapse-perf.pl)\n"
	"  --pprof              gzipped pprof profile.proto (needs -o or a non-tty stdout)\n"
	"  --info               header, host facts, processes, record counts, metrics\n"
	"  --perf-data          perf.data for perf report/script (needs -o FILE); the\n"
	"                       symbols go to FILE.debug/: perf --buildid-dir FILE.debug\n"
	"  --firefox            Firefox Profiler processed profile (JSON; gzipped when\n"
	"                       -o FILE ends in .gz)\n"
	"  --event NAME         cpu-clock (default): on-CPU samples; offcpu-time: the\n"
	"                       waits of trecord --off-cpu, weighed in time blocked\n"
	"                       (ns; --folded: microseconds); wall: both, in time, so\n"
	"                       each thread adds up to its lifetime\n"
	"  -o, --output FILE    write to FILE instead of stdout\n"
	"\n"
	"Differential profile (--diff BASE.tr NEW.tr):\n"
	"  --diff               compare two recordings: with --folded \"stack base new\"\n"
	"                       lines, with --flamegraph a differential flame graph,\n"
	"                       else the functions that changed most\n"
	"  --normalize          scale the base to the new total (flame graph colours\n"
	"                       and the summary's changes; folded stays raw counts)\n"
	"\n"
	"Filters:\n"
	"  --pid PID[,PID...]   only these processes\n"
	"  --tid TID[,TID...]   only these threads\n"
	"  --comm NAME[,NAME...] only these command names\n"
	"  --time START,END     only samples in this range, seconds from the recording\n"
	"                       start (either side may be empty)\n"
	"  --user-only          drop kernel frames (and samples with only kernel frames)\n"
	"  --no-kernel          the same as --user-only\n"
	"  --kernel-only        drop user frames (and samples with only user frames)\n"
	"\n"
	"Folded stacks and flame graph:\n"
	"  --folded-pid         root frame comm-PID\n"
	"  --folded-tid         root frame comm-PID/TID\n"
	"\n"
	"Symbolization:\n"
	"  --no-inline          do not expand inlined functions\n"
	"  --no-demangle        keep C++/Rust names mangled\n"
	"  --symfs DIR          look for binaries under DIR\n"
	"  --debug-dir DIR      also search DIR/.build-id/ for debug files (repeatable;\n"
	"                       /usr/lib/debug is always searched)\n"
	"  --symbol-source LIST where symbols come from, tried in order per file\n"
	"                       (default embedded,local,debug): embedded = the symbols\n"
	"                       trecord embedded, local = the recorded path if its\n"
	"                       build-id matches, debug = a debug file by build-id\n"
	"  --extract-archive DIR  write the embedded symbols as ELF debug files\n"
	"                       DIR/.build-id/xx/yyyy.debug (for nm, addr2line, gdb)\n"
	"                       and exit\n"
	"\n"
	"Other:\n"
	"  --top N              rows in the summary (default 20)\n"
	"  --force              skip corrupt chunks instead of stopping\n"
	"  -h, --help           this text\n"
	"  -V, --version        version\n";

enum {
	OPT_FOLDED = 256,
	OPT_FLAMEGRAPH,
	OPT_JSON,
	OPT_DIFF,
	OPT_NORMALIZE,
	OPT_PERF_SCRIPT,
	OPT_PPROF,
	OPT_INFO,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_TIME,
	OPT_USER_ONLY,
	OPT_KERNEL_ONLY,
	OPT_FOLDED_PID,
	OPT_FOLDED_TID,
	OPT_NO_INLINE,
	OPT_NO_DEMANGLE,
	OPT_SYMFS,
	OPT_DEBUG_DIR,
	OPT_TOP,
	OPT_FORCE,
	OPT_SYMBOL_SOURCE,
	OPT_EXTRACT_ARCHIVE,
	OPT_PERF_DATA,
	OPT_FIREFOX,
	OPT_EVENT,
};

static const struct option long_opts[] = {
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "flamegraph", no_argument, NULL, OPT_FLAMEGRAPH },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "normalise", no_argument, NULL, OPT_NORMALIZE },
	{ "perf-script", no_argument, NULL, OPT_PERF_SCRIPT },
	{ "pprof", no_argument, NULL, OPT_PPROF },
	{ "info", no_argument, NULL, OPT_INFO },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "no-kernel", no_argument, NULL, OPT_USER_ONLY },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "folded-pid", no_argument, NULL, OPT_FOLDED_PID },
	{ "folded-tid", no_argument, NULL, OPT_FOLDED_TID },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "symbol-source", required_argument, NULL, OPT_SYMBOL_SOURCE },
	{ "extract-archive", required_argument, NULL, OPT_EXTRACT_ARCHIVE },
	{ "perf-data", no_argument, NULL, OPT_PERF_DATA },
	{ "firefox", no_argument, NULL, OPT_FIREFOX },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "treport: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'treport --help'.\n");
	return -1;
}

static int parse_u32_list(const char *what, const char *arg, uint32_t *out, size_t *n)
{
	char *copy = strdup(arg);
	if (!copy)
		return bad("out of memory parsing %s", what);
	int rc = 0;
	for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(tok, &end, 10);
		if (errno || *end || end == tok || v > UINT32_MAX || tok[0] == '-') {
			rc = bad("--%s: '%s' is not a number", what, tok);
			break;
		}
		if (*n >= RP_MAX_FILTER) {
			rc = bad("--%s: too many values", what);
			break;
		}
		out[(*n)++] = (uint32_t)v;
	}
	if (!rc && !*n)
		rc = bad("--%s needs a value", what);
	free(copy);
	return rc;
}

static int parse_comms(const char *arg, struct rp_options *o)
{
	const char *p = arg;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len || len > 15)
			return bad("--comm: '%s': names are 1 to 15 characters", arg);
		if (o->ncomms >= RP_MAX_FILTER)
			return bad("--comm: too many values");
		memcpy(o->comms[o->ncomms], p, len);
		o->comms[o->ncomms++][len] = 0;
		p += len + (e ? 1 : 0);
		if (e && !*p)
			return bad("--comm: '%s' ends with a comma", arg);
	}
	if (!o->ncomms)
		return bad("--comm needs a value");
	return 0;
}

/* Seconds as a decimal; empty means "open". */
static int parse_seconds(const char *s, size_t len, uint64_t *ns, bool *given)
{
	char buf[64];
	*given = false;
	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || *end || end == buf || !isfinite(v) || v < 0 || v > 1e9)
		return -1;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	*given = true;
	return 0;
}

static int parse_time(const char *arg, struct rp_options *o)
{
	const char *comma = strchr(arg, ',');
	if (!comma)
		return bad("--time '%s': expected START,END in seconds", arg);
	bool gs, ge;
	uint64_t start = 0, end = UINT64_MAX;
	if (parse_seconds(arg, (size_t)(comma - arg), &start, &gs) < 0 ||
	    parse_seconds(comma + 1, strlen(comma + 1), &end, &ge) < 0)
		return bad("--time '%s': expected START,END in seconds", arg);
	if (!gs)
		start = 0;
	if (!ge)
		end = UINT64_MAX;
	if (end < start)
		return bad("--time '%s': END is before START", arg);
	o->time_set = true;
	o->time_start_ns = start;
	o->time_end_ns = end;
	return 0;
}

static int parse_sources(const char *arg, struct rp_options *o)
{
	static const char *const names[] = {
		[RP_SOURCE_EMBEDDED] = "embedded",
		[RP_SOURCE_LOCAL] = "local",
		[RP_SOURCE_DEBUG] = "debug",
	};
	const char *p = arg;
	o->nsources = 0;
	while (*p) {
		size_t len = strcspn(p, ","), k;
		for (k = 0; k < RP_MAX_SYMSRC; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == RP_MAX_SYMSRC)
			return bad("--symbol-source '%s': sources are embedded, local and debug", arg);
		for (size_t i = 0; i < o->nsources; i++)
			if (o->sources[i] == (enum rp_source)k)
				return bad("--symbol-source '%s': %s given twice", arg, names[k]);
		o->sources[o->nsources++] = (enum rp_source)k;
		p += len + (p[len] == ',');
	}
	if (!o->nsources)
		return bad("--symbol-source needs at least one of embedded, local, debug");
	return 0;
}

int rp_options_parse(int argc, char **argv, struct rp_options *o)
{
	int nout = 0, ndebug = 0;
	memset(o, 0, sizeof(*o));
	o->top = 20;
	optind = 1;
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, ":o:hV", long_opts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case OPT_FOLDED: o->output = RP_OUT_FOLDED; nout++; break;
		case OPT_FLAMEGRAPH: o->output = RP_OUT_FLAMEGRAPH; nout++; break;
		case OPT_JSON: o->output = RP_OUT_JSON; nout++; break;
		case OPT_DIFF: o->diff = true; break;
		case OPT_NORMALIZE: o->diff_normalize = true; break;
		case OPT_PERF_SCRIPT: o->output = RP_OUT_PERF_SCRIPT; nout++; break;
		case OPT_PPROF: o->output = RP_OUT_PPROF; nout++; break;
		case OPT_INFO: o->output = RP_OUT_INFO; nout++; break;
		case OPT_PERF_DATA: o->output = RP_OUT_PERF_DATA; nout++; break;
		case OPT_FIREFOX: o->output = RP_OUT_FIREFOX; nout++; break;
		case 'o':
			if (!optarg[0])
				return bad("-o needs a file name");
			o->out_path = optarg;
			break;
		case OPT_PID:
			if (parse_u32_list("pid", optarg, o->pids, &o->npids))
				return -1;
			break;
		case OPT_TID:
			if (parse_u32_list("tid", optarg, o->tids, &o->ntids))
				return -1;
			break;
		case OPT_COMM:
			if (parse_comms(optarg, o))
				return -1;
			break;
		case OPT_TIME:
			if (parse_time(optarg, o))
				return -1;
			break;
		case OPT_USER_ONLY: o->user_only = true; break;
		case OPT_KERNEL_ONLY: o->kernel_only = true; break;
		case OPT_FOLDED_PID: o->folded_pid = true; break;
		case OPT_FOLDED_TID: o->folded_tid = true; break;
		case OPT_NO_INLINE: o->no_inline = true; break;
		case OPT_NO_DEMANGLE: o->no_demangle = true; break;
		case OPT_SYMFS: o->symfs = optarg; break;
		case OPT_DEBUG_DIR:
			if (ndebug >= RP_MAX_DEBUG_DIRS)
				return bad("too many --debug-dir options");
			o->debug_dirs[ndebug++] = optarg;
			break;
		case OPT_TOP: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' || v == 0 || v > 1000000)
				return bad("--top '%s': expected a number from 1 to 1000000", optarg);
			o->top = (unsigned)v;
			break;
		}
		case OPT_FORCE: o->force = true; break;
		case OPT_EVENT:
			if (!strcmp(optarg, "cpu-clock"))
				o->event = RP_EVENT_CPU_CLOCK;
			else if (!strcmp(optarg, "offcpu-time"))
				o->event = RP_EVENT_OFFCPU;
			else if (!strcmp(optarg, "wall"))
				o->event = RP_EVENT_WALL;
			else
				return bad("--event '%s': events are cpu-clock, offcpu-time and wall",
					   optarg);
			break;
		case OPT_SYMBOL_SOURCE:
			if (parse_sources(optarg, o))
				return -1;
			break;
		case OPT_EXTRACT_ARCHIVE:
			if (!optarg[0])
				return bad("--extract-archive needs a directory");
			o->extract_dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("treport %s (trec format %d.%d)\n", TREPORT_VERSION,
			       TREC_FORMAT_VERSION_MAJOR, TREC_FORMAT_VERSION_MINOR);
			return 1;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	o->debug_dirs[ndebug] = "/usr/lib/debug";
	o->debug_dirs[ndebug + 1] = NULL;
	if (nout > 1)
		return bad("choose one of --folded, --perf-script, --pprof, --info, --flamegraph, --json, "
			   "--perf-data, --firefox");
	if (o->output == RP_OUT_PERF_DATA && !o->out_path)
		return bad("--perf-data needs -o FILE (a perf.data file is written in place)");
	if (o->user_only && o->kernel_only)
		return bad("--user-only and --kernel-only exclude each other");
	if (o->diff && argc - optind != 2)
		return bad("--diff takes two recordings: BASE.tr NEW.tr");
	if (o->diff && o->output != RP_OUT_SUMMARY && o->output != RP_OUT_FOLDED &&
	    o->output != RP_OUT_FLAMEGRAPH)
		return bad("--diff writes a summary, --folded or --flamegraph");
	if (o->event == RP_EVENT_OFFCPU &&
	    (o->output == RP_OUT_PERF_DATA || o->output == RP_OUT_FIREFOX))
		return bad("--perf-data and --firefox export cpu-clock samples only, not "
			   "--event offcpu-time");
	if (o->event == RP_EVENT_WALL && o->output != RP_OUT_SUMMARY &&
	    o->output != RP_OUT_FOLDED && o->output != RP_OUT_FLAMEGRAPH &&
	    o->output != RP_OUT_PPROF && o->output != RP_OUT_INFO)
		return bad("--event wall goes with the summary, --folded, --flamegraph and --pprof");
	if (o->diff_normalize && !o->diff)
		return bad("--normalize goes with --diff");
	if (optind >= argc)
		return bad("no recording given");
	o->inputs = argv + optind;
	o->ninputs = argc - optind;
	for (int i = 0, stdin_seen = 0; i < o->ninputs; i++)
		if (!strcmp(o->inputs[i], "-") && stdin_seen++)
			return bad("'-' (standard input) can be given once");
	return 0;
}
