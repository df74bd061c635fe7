// SPDX-License-Identifier: MIT
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "record/archive/archive.h"
#include "record/cli.h"
#include "record/cli_perf.h"
#include "record/io/output.h"
#include "record/procs/proc_status.h"

static const char usage[] =
	"usage: trecord [options] [--] command [args...]\n"
	"       trecord [options] -p PID[,PID...]\n"
	"       trecord [options] -a\n"
	"\n"
	"Samples CPU stacks (user and kernel) with eBPF, unwinding programs built\n"
	"without frame pointers, and writes a recording for treport.\n"
	"\n"
	"  -F, --freq HZ        samples per second per CPU, 1.." "50000 (default 99)\n"
	"  -p, --pid PID[,PID]  record these running processes (and their new children)\n"
	"  -a, --all-cpus       record every process on every CPU (trecord's own\n"
	"                       threads unwalked: one [error: SELF] frame each)\n"
	"  -o, --output FILE    output file (default trec.tr); an existing FILE is\n"
	"                       kept as FILE.old; - streams the recording to stdout\n"
	"                       (trecord -o - -- cmd | ssh host 'cat > x.tr')\n"
	"  -f, --force          overwrite FILE instead of keeping FILE.old\n"
	"  -d, --duration SECS  stop after SECS seconds\n"
	"  --max-cpu PCT        the most of each CPU the in-kernel unwinding may\n"
	"                       take (default 10, at most 50); past it samples keep\n"
	"                       only their leaf and kernel stack ([error: THROTTLED])\n"
	"  --archive=LEVEL      embed the symbols of the files samples hit, so the\n"
	"                       recording symbolizes anywhere: none, symbols,\n"
	"                       sampled (the symbols, DWARF lines and inlines of\n"
	"                       the sampled functions: what the recording needs;\n"
	"                       the default) or full (all symbols, DWARF lines\n"
	"                       and inlines)\n"
	"  --no-archive         same as --archive=none\n"
	"  --no-delta-cache     neither read nor write the stack-delta cache\n"
	"                       ($TREC_CACHE_DIR, else ~/.cache/trec)\n"
	"  --no-symbol-cache    neither read nor write the symbol cache (the same\n"
	"                       directory; what --archive=sampled reads of DWARF)\n"
	"  --no-deferred-unwind while a file's stack deltas load, walk its frames\n"
	"                       by frame pointer instead of copying the stack and\n"
	"                       finishing the walk once they are in\n"
	"  --off-cpu            also record off-CPU time: the stack of each wait\n"
	"                       (sleep, lock, I/O, pipe) and how long it lasted\n"
	"  --off-cpu-min USEC   shorter waits are counted, not stored (default 10)\n"
	"  -q, --quiet          no summary line\n"
	"  -v, --verbose        log process syncs and BPF program statistics\n"
	"  -h, --help           this help\n"
	"  -V, --version        print the version\n"
	"\n"
	"With a command, trecord starts it, records it and its children, and exits\n"
	"with its exit status. Otherwise it records until Ctrl-C (or --duration,\n"
	"or until every -p process has exited). Needs root (CAP_BPF, CAP_PERFMON).\n";

static int bad(FILE *err, const char *fmt, const char *arg)
{
	return trec_cli_bad(err, fmt, arg);
}

/* The option getopt complained about, as the user wrote it: a long option
 * is the last word it read, a short one may sit inside a bundle (-qz). */
static const char *bad_opt(char **argv, int opt, char buf[3])
{
	const char *word = argv[optind - 1];

	if (!strncmp(word, "--", 2) || !opt)
		return word;
	buf[0] = '-';
	buf[1] = (char)opt;
	buf[2] = 0;
	return buf;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v > max)
		return -EINVAL;
	return 0;
}

/* A finite number in [lo, hi], the whole string. */
static int parse_double(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || !(*v >= lo) || !(*v <= hi))
		return -EINVAL;
	return 0;
}

static int parse_pids(const char *arg, struct trec_options *o, FILE *err)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return bad(err, "out of memory parsing -p %s", arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long pid;
		uint32_t *np;

		if (parse_uint(tok, INT_MAX, &pid) || pid == 0) {
			rc = bad(err, "-p: not a process id: '%s'", tok);
			break;
		}
		np = realloc(o->pids, (o->num_pids + 1) * sizeof(*np));
		if (!np) {
			rc = bad(err, "out of memory parsing -p %s", arg);
			break;
		}
		o->pids = np;
		o->pids[o->num_pids++] = pid;
	}
	if (!rc && !o->num_pids)
		rc = bad(err, "-p: no process id in '%s'", arg);
	free(copy);
	return rc;
}

/* Each -p pid must run. A thread id stands for its process, as in perf
 * (BPF follows processes: a thread's id alone would match no sample). */
static int check_pids(struct trec_options *o, FILE *err)
{
	size_t n = 0;

	for (size_t i = 0; i < o->num_pids; i++) {
		uint32_t pid = o->pids[i], tgid = pid;
		bool dup = false;

		switch (trec_proc_status(pid, &tgid)) {
		case TREC_PROC_GONE:
			fprintf(err, "trecord: no such process: %u\n", pid);
			return TREC_CLI_ERROR;
		case TREC_PROC_ZOMBIE:
			fprintf(err, "trecord: process %u has exited (a zombie its parent has not "
				"reaped): nothing to record\n", pid);
			return TREC_CLI_ERROR;
		case TREC_PROC_LIVE:
			break;
		}
		if (tgid != pid && !o->quiet)
			fprintf(err, "trecord: %u is a thread of process %u: recording the process "
				"(-t %u records the thread alone)\n", pid, tgid, pid);
		for (size_t j = 0; j < n; j++)
			dup |= o->pids[j] == tgid;
		if (!dup)
			o->pids[n++] = tgid;
	}
	o->num_pids = n;
	return TREC_CLI_RUN;
}

/* Long-only options: above any short letter, below cli_perf.c's 0x200. */
enum { OPT_MAX_CPU = 0x100, OPT_NO_DELTA_CACHE, OPT_NO_ARCHIVE,
       OPT_NO_DEFERRED_UNWIND, OPT_NO_SYMBOL_CACHE };

int trec_parse_options(int argc, char **argv, struct trec_options *o, FILE *out, FILE *err)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "archive", required_argument, NULL, 'A' },
		/* not 'N': -N is perf's --no-buildid-cache (cli_perf.c) */
		{ "no-archive", no_argument, NULL, OPT_NO_ARCHIVE },
		{ "max-cpu", required_argument, NULL, OPT_MAX_CPU },
		{ "no-delta-cache", no_argument, NULL, OPT_NO_DELTA_CACHE },
		{ "no-symbol-cache", no_argument, NULL, OPT_NO_SYMBOL_CACHE },
		{ "no-deferred-unwind", no_argument, NULL, OPT_NO_DEFERRED_UNWIND },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "off-cpu-min", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	/* trecord's own, then cli_perf.c's */
	struct option all[sizeof(longopts) / sizeof(longopts[0]) + 32];
	size_t n = 0;
	unsigned long v;
	char optbuf[3], msg[512];
	int c;

	for (size_t i = 0; longopts[i].name; i++)
		all[n++] = longopts[i];
	for (size_t i = 0; trec_cli_perf_longopts[i].name && n + 1 < sizeof(all) / sizeof(all[0]); i++)
		all[n++] = trec_cli_perf_longopts[i];
	all[n] = (struct option){ NULL, 0, NULL, 0 };

	memset(o, 0, sizeof(*o));
	o->freq_hz = 0; /* not given: TREC_DEFAULT_FREQ, unless -c (cli_perf.c) */
	o->output = TREC_DEFAULT_OUTPUT;
	o->archive_level = TREC_ARCHIVE_SAMPLED;
	o->max_cpu_pct = TREC_DEFAULT_MAX_CPU;
	o->offcpu_min_us = TREC_DEFAULT_OFFCPU_MIN_US;
	o->argc = argc;
	o->argv = argv;
	trec_cli_perf_init(o);
	opterr = 0;
	optind = 1;
	/* "+": stop at the first non-option, which starts the command. */
	while ((c = getopt_long(argc, argv, "+:F:p:ao:fd:qvhV" TREC_CLI_PERF_SHORTOPTS, all, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (parse_uint(optarg, ULONG_MAX, &v) || v < 1 || v > TREC_MAX_FREQ)
				return bad(err, "-F must be a frequency from 1 to 50000 Hz, not '%s'",
					   optarg);
			o->freq_hz = v;
			break;
		case 'p':
			if (parse_pids(optarg, o, err))
				return TREC_CLI_ERROR;
			break;
		case 'a':
			o->all = true;
			break;
		case 'o':
			if (!*optarg)
				return bad(err, "-o needs a file name%s", "");
			o->output = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'd':
			if (parse_double(optarg, 0, 1e9, &o->duration_s) || o->duration_s == 0)
				return bad(err, "--duration must be a positive number of seconds, not '%s'",
					   optarg);
			break;
		case OPT_MAX_CPU:
			if (parse_double(optarg, 0.01, TREC_MAX_MAX_CPU, &o->max_cpu_pct))
				return bad(err, "--max-cpu must be a percentage from 0.01 to 50, not '%s'",
					   optarg);
			break;
		case OPT_NO_DELTA_CACHE:
			o->no_delta_cache = true;
			break;
		case OPT_NO_SYMBOL_CACHE:
			o->no_symbol_cache = true;
			break;
		case OPT_NO_DEFERRED_UNWIND:
			o->no_deferred_unwind = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'A':
			o->archive_level = trec_archive_level_parse(optarg);
			if (o->archive_level < 0)
				return bad(err, "--archive must be none, symbols, sampled or full, not '%s'",
					   optarg);
			break;
		case OPT_NO_ARCHIVE:
			o->archive_level = TREC_ARCHIVE_NONE;
			break;
		case 'O':
			o->off_cpu = true;
			break;
		case 'M':
			if (parse_uint(optarg, TREC_MAX_OFFCPU_MIN_US, &v))
				return bad(err, "--off-cpu-min must be microseconds from 0 to 60000000, not '%s'",
					   optarg);
			o->offcpu_min_us = v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage, out);
			fputs(trec_cli_perf_usage, out);
			return TREC_CLI_EXIT_OK;
		case 'V':
			fprintf(out, "trecord %s\n", TREC_VERSION);
			return TREC_CLI_EXIT_OK;
		case ':':
			return bad(err, "option '%s' needs an argument", bad_opt(argv, optopt, optbuf));
		default:
			switch (trec_cli_perf_option(c, optarg, o, err)) {
			case 1:
				break;
			case 0:
				return bad(err, "unknown option '%s'", bad_opt(argv, optopt, optbuf));
			default:
				return TREC_CLI_ERROR;
			}
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (trec_cli_perf_finish(o, err))
		return TREC_CLI_ERROR;

	if (o->num_pids && o->cmd)
		return bad(err, "give either -p or a command, not both%s", "");
	if (o->num_pids && o->all)
		return bad(err, "-a already records every process; drop -p%s", "");
	if (!o->num_pids && !o->all && !o->cmd)
		return bad(err, "nothing to record: give a command, -p PID or -a%s", "");
	if (trec_output_check(o->output, o->force, msg, sizeof(msg))) {
		fprintf(err, "trecord: %s\n", msg);
		return TREC_CLI_ERROR;
	}
	return check_pids(o, err);
}

void trec_options_free(struct trec_options *o)
{
	free(o->pids);
	o->pids = NULL;
	trec_cli_perf_free(o);
	o->num_pids = 0;
}
