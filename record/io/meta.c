// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "record/archive/archive.h"
#include "record/cli.h"
#include "record/io/meta.h"
#include "record/io/output.h"

static char *join_args(char *const *argv, int argc)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int trec_meta_write(struct trec_output *out, const struct trec_options *o)
{
	char freq[16], period[24], ncpu[16], offmin[24], *pids;
	struct trec_meta_entry e[16];
	struct trec_meta m = { .entries = e };
	char host[256] = "", *cmdline, *command = NULL;
	struct utsname u;
	struct trec_writer *w;
	int cmd_argc = 0, rc;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	snprintf(freq, sizeof(freq), "%u", o->freq_hz);
	/* -c's period as given; with -F the mean period */
	snprintf(period, sizeof(period), "%llu",
		 o->period_ns ? (unsigned long long)o->period_ns : 1000000000ULL / o->freq_hz);
	snprintf(ncpu, sizeof(ncpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(offmin, sizeof(offmin), "%llu", (unsigned long long)o->offcpu_min_us * 1000);
	/* every -p pid, however many (11 bytes each at most) */
	pids = malloc(o->num_pids * 11 + 1);
	if (!pids)
		return -ENOMEM;
	pids[0] = 0;
	for (size_t i = 0, len = 0; i < o->num_pids; i++)
		len += (size_t)sprintf(pids + len, "%s%u", i ? "," : "", o->pids[i]);
	if (o->cmd)
		while (o->cmd[cmd_argc])
			cmd_argc++;
	cmdline = join_args(o->argv, o->argc);
	if (o->cmd)
		command = join_args(o->cmd, cmd_argc);
	if (!cmdline || (o->cmd && !command)) {
		free(cmdline);
		free(command);
		free(pids);
		return -ENOMEM;
	}

#define META(k, v) (e[m.num_entries++] = (struct trec_meta_entry){ k, v })
	META("trec_version", TREC_VERSION);
	META("cmdline", cmdline);
	META("mode", o->cmd ? (o->all ? "command+all" : "command") : o->all ? "all" : "pid");
	META("command", command ? command : "");
	META("pids", pids);
	META("freq_hz", freq);
	META("sample_period_ns", period);
	META("event", o->off_cpu ? "cpu-clock,offcpu-time" : "cpu-clock");
	if (o->off_cpu)
		META("offcpu_min_ns", offmin);
	META("hostname", host);
	META("kernel_release", u.release);
	META("machine", u.machine);
	META("nr_cpus", ncpu);
	META("clock", "CLOCK_MONOTONIC");
	META("archive", trec_archive_level_name(o->archive_level));
#undef META
	w = trec_output_lock(out);
	rc = w ? trec_output_unlock(out, trec_write_meta(w, &m)) : trec_output_error(out);
	free(cmdline);
	free(command);
	free(pids);
	return rc;
}
