// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/vfs.h>
#include "record/cli.h"
#include "record/cli_perf.h"
#include "record/procs/proc_status.h"
#include "trec_format.h"
#include "trec_types.h"

#define CGROUP2_MAGIC 0x63677270
/* -c: cpu-clock fires at most every 10 us (the kernel's floor), and a
 * sample every 10 s is already one in a blue moon. */
#define PERIOD_MIN_NS 20000ULL
#define PERIOD_MAX_NS 10000000000ULL
#define DEFAULT_WINDOW_S 30.0

enum {
	OPT_OVERWRITE = 0x200,
	OPT_WINDOW,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_CALL_GRAPH,
	OPT_COMPRESSION,
};

const char trec_cli_perf_usage[] =
	"\n"
	"Flight recorder and rotating output (files OUT.YYYYMMDDhhmmssCC, as perf):\n"
	"  --overwrite          keep only the last --window seconds in memory; write\n"
	"                       them on SIGUSR2 (and at the end), and go on\n"
	"  --window SECS        the window of --overwrite (default 30)\n"
	"  --switch-output[=signal|SIZE|TIME]\n"
	"                       a new file on SIGUSR2 (signal, the default), every\n"
	"                       SIZE bytes (10M: B, K, M, G) or every TIME (30s: s, m, h, d)\n"
	"  --switch-max-files N keep only the newest N files\n"
	"\n"
	"perf record's spellings (README: every perf record option):\n"
	"  -t, --tid TID[,TID]  only these threads (at most 16)\n"
	"  -C, --cpu CPUS       sample on these CPUs only (0,2-3)\n"
	"  -u, --uid USER       only this user's processes (alone: system-wide)\n"
	"  -G, --cgroup NAME    only this cgroup v2 (alone: system-wide)\n"
	"  -c, --count NS       a sample every NS ns of CPU time, instead of -F\n"
	"  -e cpu-clock|task-clock  the sampling event (the only ones)\n"
	"  -z, --compression-level[=N]  the chunks' zstd level, 1-22 (alone: 1,\n"
	"                       perf's); default 3, or 1 while records come\n"
	"                       faster than 1 MiB/s (as at -a -F 20000)\n"
	"  -g, --call-graph=MODE, -B, -N  accepted; no effect (stacks are\n"
	"                       always whole)\n";

const struct option trec_cli_perf_longopts[] = {
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "tid", required_argument, NULL, 't' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "uid", required_argument, NULL, 'u' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "count", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "compression-level", optional_argument, NULL, OPT_COMPRESSION },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 },
};

int trec_cli_bad(FILE *err, const char *fmt, const char *arg)
{
	fputs("trecord: ", err);
	fprintf(err, fmt, arg);
	fputs(" (see trecord --help)\n", err);
	return TREC_CLI_ERROR;
}

static int bad(FILE *err, const char *fmt, const char *arg)
{
	return trec_cli_bad(err, fmt, arg);
}

static int parse_u64(const char *s, uint64_t *v, char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -errno : 0;
}

/* perf's SIZE (B/K/M/G) or TIME (s/m/h/d) for --switch-output. */
static int parse_switch(const char *arg, struct trec_flight_opts *f)
{
	static const struct { char unit; int kind; uint64_t mult; } units[] = {
		/* m is minutes, M mebibytes; the other letters either case */
		{ 'B', TREC_SWITCH_SIZE, 1 }, { 'b', TREC_SWITCH_SIZE, 1 },
		{ 'K', TREC_SWITCH_SIZE, 1ULL << 10 }, { 'k', TREC_SWITCH_SIZE, 1ULL << 10 },
		{ 'M', TREC_SWITCH_SIZE, 1ULL << 20 },
		{ 'G', TREC_SWITCH_SIZE, 1ULL << 30 }, { 'g', TREC_SWITCH_SIZE, 1ULL << 30 },
		{ 's', TREC_SWITCH_TIME, 1000000000ULL }, { 'm', TREC_SWITCH_TIME, 60000000000ULL },
		{ 'h', TREC_SWITCH_TIME, 3600000000000ULL }, { 'd', TREC_SWITCH_TIME, 86400000000000ULL },
	};
	uint64_t v;
	char *end;

	if (!arg || !strcmp(arg, "signal")) {
		f->switch_kind = TREC_SWITCH_SIGNAL;
		return 0;
	}
	if (parse_u64(arg, &v, &end) || !v || !end[0] || end[1])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (*end != units[i].unit)
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -ERANGE;
		f->switch_kind = units[i].kind;
		if (units[i].kind == TREC_SWITCH_SIZE)
			f->switch_bytes = v * units[i].mult;
		else
			f->switch_ns = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

/* A comma-separated list of unsigned numbers (ranges A-B if ranges). */
static int parse_list(const char *arg, bool ranges, unsigned long max,
		      int (*add)(void *ctx, unsigned long v), void *ctx)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0, n = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		uint64_t lo, hi;
		char *end;

		if (parse_u64(tok, &lo, &end) || lo > max) {
			rc = -EINVAL;
			break;
		}
		hi = lo;
		if (ranges && *end == '-' && (parse_u64(end + 1, &hi, &end) || hi < lo || hi > max))
			rc = -EINVAL;
		if (*end)
			rc = -EINVAL;
		for (uint64_t v = lo; !rc && v <= hi; v++, n++)
			rc = add(ctx, (unsigned long)v);
	}
	free(copy);
	return rc ? rc : n ? 0 : -EINVAL;
}

static int add_tid(void *ctx, unsigned long tid)
{
	struct trec_options *o = ctx;
	uint32_t *n;

	if (!tid || o->num_tids == TREC_MAX_FILTER_TIDS)
		return -E2BIG;
	n = realloc(o->tids, (o->num_tids + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->tids = n;
	o->tids[o->num_tids++] = (uint32_t)tid;
	return 0;
}

static int add_cpu(void *ctx, unsigned long cpu)
{
	struct trec_options *o = ctx;

	o->cpus[cpu] = 1;
	return 0;
}

static int parse_tids(const char *arg, struct trec_options *o, FILE *err)
{
	int rc = parse_list(arg, false, INT_MAX, add_tid, o);

	if (rc == -E2BIG)
		return bad(err, "-t: at most 16 threads, and no 0, in '%s'", arg);
	if (rc)
		return bad(err, "-t: not a thread id list: '%s'", arg);
	return 0;
}

static int parse_cpus(const char *arg, struct trec_options *o, FILE *err)
{
	int ncpu = get_nprocs_conf();
	char range[32];

	if (!o->cpus && !(o->cpus = calloc((size_t)ncpu, 1)))
		return bad(err, "out of memory parsing -C %s", arg);
	o->cpus_len = ncpu;
	if (!parse_list(arg, true, (unsigned long)ncpu - 1, add_cpu, o))
		return 0;
	snprintf(range, sizeof(range), "0-%d", ncpu - 1);
	fprintf(err, "trecord: -C: not a list of CPUs from %s: '%s' (see trecord --help)\n", range,
		arg);
	return TREC_CLI_ERROR;
}

static int parse_user(const char *arg, struct trec_options *o, FILE *err)
{
	struct passwd *pw = getpwnam(arg);
	uint64_t v;
	char *end;

	if (pw) {
		o->uid = pw->pw_uid;
		return 0;
	}
	if (!parse_u64(arg, &v, &end) && !*end && v < TREC_NO_UID) {
		o->uid = (uint32_t)v;
		return 0;
	}
	return bad(err, "-u: no such user: '%s'", arg);
}

/* Where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup, or in the
 * hybrid layout /sys/fs/cgroup/unified; else the first cgroup2 mount. */
static int cgroup2_root(char *root, size_t len)
{
	char line[PATH_MAX + 256], dir[PATH_MAX], type[64];
	struct statfs sf;
	FILE *f;
	int rc = -ENOENT;

	if (!statfs("/sys/fs/cgroup", &sf) && sf.f_type == CGROUP2_MAGIC) {
		snprintf(root, len, "/sys/fs/cgroup");
		return 0;
	}
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", dir);
			rc = 0;
		}
	fclose(f);
	return rc;
}

/* A cgroup v2 id is its directory's inode number. */
static int parse_cgroup(const char *arg, struct trec_options *o, FILE *err)
{
	char root[PATH_MAX], path[2 * PATH_MAX];
	struct stat st;

	if (strchr(arg, ','))
		return bad(err, "-G: one cgroup at a time, not '%s'", arg);
	if (cgroup2_root(root, sizeof(root)))
		return bad(err, "-G needs the cgroup v2 hierarchy, which is not mounted%s", "");
	snprintf(path, sizeof(path), "%s/%s", root, arg[0] == '/' ? arg + 1 : arg);
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(err, "trecord: -G: no cgroup '%s' under %s (see trecord --help)\n", arg, root);
		return TREC_CLI_ERROR;
	}
	o->cgroup_id = st.st_ino;
	return 0;
}

/* -e: cpu-clock and task-clock are what trecord samples with; the rest
 * is refused with the reason. */
static int parse_events(const char *arg, FILE *err)
{
	static const char *const hw[] = {
		"cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-instructions", "branch-misses", "bus-cycles",
		"ref-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
		"L1-dcache-load-misses", "L1-dcache-loads", "LLC-load-misses", "LLC-loads",
		"dTLB-load-misses", "iTLB-load-misses", "mem-loads", "mem-stores",
	};
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0, n = 0;

	if (!copy)
		return bad(err, "out of memory parsing -e %s", arg);
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save), n++) {
		bool is_hw = strchr(tok, '/') || (tok[0] == 'r' && tok[1] && isxdigit((unsigned char)tok[1]));

		if (!strcmp(tok, "cpu-clock") || !strcmp(tok, "task-clock"))
			continue;
		if (!strncmp(tok, "cpu-clock:", 10) || !strncmp(tok, "task-clock:", 11)) {
			rc = bad(err, "-e %s: event modifiers are not supported: trecord records "
				      "user and kernel stacks (treport --user-only or --kernel-only "
				      "filters afterwards)", tok);
			break;
		}
		for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
			is_hw |= !strcasecmp(tok, hw[i]);
		if (is_hw)
			rc = bad(err, "-e %s: hardware events are not supported: trecord samples with "
				      "the cpu-clock timer (-e cpu-clock)", tok);
		else if (strchr(tok, ':'))
			rc = bad(err, "-e %s: tracepoints are not supported yet: trecord samples "
				      "with the cpu-clock timer (-e cpu-clock)", tok);
		else
			rc = bad(err, "-e: unknown event '%s': trecord samples with cpu-clock "
				      "(task-clock is the same here)", tok);
	}
	if (!rc && !n)
		rc = bad(err, "-e: no event in '%s'", arg);
	free(copy);
	return rc;
}

/* perf's modes; trecord unwinds in the kernel with its own tables. */
static int parse_call_graph(const char *arg, FILE *err)
{
	uint64_t v;
	char *end;

	if (!strcmp(arg, "fp") || !strcmp(arg, "lbr") || !strcmp(arg, "dwarf"))
		return 0;
	if (!strncmp(arg, "dwarf,", 6) && !parse_u64(arg + 6, &v, &end) && !*end)
		return 0;
	if (!strncmp(arg, "fp,", 3) && !parse_u64(arg + 3, &v, &end) && !*end)
		return 0;
	return bad(err, "--call-graph must be fp, dwarf[,SIZE] or lbr, not '%s'", arg);
}

void trec_cli_perf_init(struct trec_options *o)
{
	o->uid = TREC_NO_UID;
	o->flight.window_s = DEFAULT_WINDOW_S;
}

int trec_cli_perf_option(int c, const char *arg, struct trec_options *o, FILE *err)
{
	uint64_t v;
	char *end;

	switch (c) {
	case OPT_OVERWRITE:
		o->flight.overwrite = true;
		return 1;
	case OPT_WINDOW:
		errno = 0;
		o->flight.window_s = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->flight.window_s >= 0.1) ||
		    o->flight.window_s > 86400)
			return bad(err, "--window must be from 0.1 to 86400 seconds, not '%s'", arg);
		o->flight.window_set = true;
		return 1;
	case OPT_SWITCH_OUTPUT:
		if (parse_switch(arg, &o->flight))
			return bad(err, "--switch-output must be signal, a size (10M: B, K, M, G) or "
				      "a time (30s: s, m, h, d), not '%s'", arg);
		return 1;
	case OPT_SWITCH_MAX_FILES:
		if (parse_u64(arg, &v, &end) || *end || !v || v > 100000)
			return bad(err, "--switch-max-files must be from 1 to 100000, not '%s'", arg);
		o->flight.max_files = (unsigned)v;
		return 1;
	case 't':
		return parse_tids(arg, o, err) ? -1 : 1;
	case 'C':
		return parse_cpus(arg, o, err) ? -1 : 1;
	case 'u':
		return parse_user(arg, o, err) ? -1 : 1;
	case 'G':
		return parse_cgroup(arg, o, err) ? -1 : 1;
	case 'c':
		if (parse_u64(arg, &v, &end) || *end || v < PERIOD_MIN_NS || v > PERIOD_MAX_NS)
			return bad(err, "-c must be a cpu-clock period from 20000 to 10000000000 ns, "
				      "not '%s'", arg);
		o->period_ns = v;
		return 1;
	case 'e':
		return parse_events(arg, err) ? -1 : 1;
	case OPT_CALL_GRAPH:
		return parse_call_graph(arg, err) ? -1 : 1;
	case 'z':
	case OPT_COMPRESSION: /* perf's: alone, level 1 */
		if (!arg) {
			o->compression_level = 1;
			return 1;
		}
		/* The help text and this message spell the bound. */
		_Static_assert(TREC_MAX_COMPRESSION_LEVEL == 22, "-z's range is 1-22");
		if (parse_u64(arg, &v, &end) || *end || v < 1 || v > TREC_MAX_COMPRESSION_LEVEL)
			return bad(err, "-z/--compression-level must be a zstd level from 1 to 22, "
				      "not '%s'", arg);
		o->compression_level = (int)v;
		return 1;
	case 'g':           /* stacks are always recorded, user and kernel */
	case 'B':           /* build ids are in the FILE records; there is no cache */
	case 'N':
		return 1;
	}
	return 0;
}

int trec_cli_perf_finish(struct trec_options *o, FILE *err)
{
	const struct trec_flight_opts *f = &o->flight;

	if (o->period_ns) {
		if (o->freq_hz)
			return bad(err, "give -F or -c, not both%s", "");
		o->freq_hz = (unsigned)((1000000000ULL + o->period_ns / 2) / o->period_ns);
		if (!o->freq_hz)
			o->freq_hz = 1;
	} else if (!o->freq_hz) {
		o->freq_hz = TREC_DEFAULT_FREQ;
	}
	if (f->window_set && !f->overwrite)
		return bad(err, "--window is the window of --overwrite: give both, or neither%s", "");
	if (f->max_files && f->switch_kind == TREC_SWITCH_NONE)
		return bad(err, "--switch-max-files needs --switch-output%s", "");
	if (f->overwrite && f->switch_kind == TREC_SWITCH_SIZE)
		return bad(err, "--overwrite keeps a time window: --switch-output takes signal or "
			      "a time with it, not a size%s", "");
	if (trec_flight_wanted(f) && !strcmp(o->output, "-"))
		return bad(err, "--overwrite and --switch-output write files: -o - cannot take them%s",
			   "");
	/* (before -t's processes join o->pids) BPF keeps only -t's threads:
	 * the -p processes would record nothing */
	if (o->num_tids && o->num_pids)
		return bad(err, "give -p or -t, not both: -t records its threads alone%s", "");
	if (o->num_tids && (o->cmd || o->all))
		return bad(err, "-t records threads that run already: not with %s",
			   o->cmd ? "a command" : "-a");
	for (size_t i = 0; i < o->num_tids; i++) {
		uint32_t tgid;
		char buf[16];
		bool have = false;

		snprintf(buf, sizeof(buf), "%u", o->tids[i]);
		if (trec_proc_status(o->tids[i], &tgid) != TREC_PROC_LIVE)
			return bad(err, "-t: no such thread: %s", buf);
		for (size_t j = 0; j < o->num_pids; j++)
			have |= o->pids[j] == tgid;
		if (!have) {
			uint32_t *np = realloc(o->pids, (o->num_pids + 1) * sizeof(*np));

			if (!np)
				return bad(err, "out of memory%s", "");
			o->pids = np;
			o->pids[o->num_pids++] = tgid;
		}
	}
	/* perf's -u and -G watch the whole system for that user or cgroup. */
	if ((o->uid != TREC_NO_UID || o->cgroup_id) && !o->cmd && !o->num_pids)
		o->all = true;
	return 0;
}

void trec_cli_perf_free(struct trec_options *o)
{
	free(o->tids);
	free(o->cpus);
	o->tids = NULL;
	o->cpus = NULL;
	o->num_tids = 0;
}
