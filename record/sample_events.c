// SPDX-License-Identifier: MIT
/*
 * The sampler's cpu-clock perf events (bpf_loader.h), each with
 * trec_sample attached: one per CPU for -a, -C, -u and -G, or one per
 * thread of the recorded processes, as perf record opens them for -p, -t
 * and a command.
 *
 * Per CPU, every thread on the machine takes the timer interrupt and the
 * sampler drops what it does not follow. Recording a sleeping process at
 * 20 kHz that way cut a bystander's zstd speed to a third, and trecord's
 * own threads paid the same. Per thread, only the recorded threads are
 * interrupted; the threads and processes they start inherit the event.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "format/containers/vec.h"
#include "record/bpf_loader.h"
#include "record/procs/open_regular.h"
#include "record/procs/pid_sync.h"
#include "trec.skel.h"

/* Per-thread events kept at most: each is an fd and kernel memory. A
 * process with more threads is sampled per CPU instead. */
#define TASK_EVENTS_MAX 1024

static int read_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int trec_bpf_check_freq(unsigned freq_hz, char *err, size_t errlen)
{
	int max_rate = read_max_sample_rate();

	if (max_rate > 0 && freq_hz > (unsigned)max_rate) {
		snprintf(err, errlen,
			 "-F %u is above kernel.perf_event_max_sample_rate (%d); lower -F or raise the sysctl",
			 freq_hz, max_rate);
		return -EINVAL;
	}
	return 0;
}

static void sampling_attr(const struct trec_bpf_loader *l, unsigned freq_hz,
			  struct perf_event_attr *attr)
{
	*attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(*attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = freq_hz,
		.freq = 1,
	};
	if (l->period_ns) {
		attr->freq = 0;
		attr->sample_period = l->period_ns;
	}
}

/*
 * Opens the event of (pid, cpu) and attaches the sampler; the link owns
 * the fd. 0, or a negative errno: -ESRCH for a thread gone and -ENODEV
 * for an offline CPU are the caller's to skip; else err says why.
 */
static int attach_event(struct trec_bpf_loader *l, struct perf_event_attr *attr, int pid,
			int cpu, char *err, size_t errlen)
{
	struct bpf_link *link;
	int fd, e;

	if (TREC_GROW(l->perf_links, l->cap_perf_links, (size_t)l->num_perf_links + 1, 16)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		if (e == -EACCES || e == -EPERM)
			return trec_bpf_needs_root(err, errlen, e);
		if (pid >= 0)
			snprintf(err, errlen, "cannot open a cpu-clock event on thread %d: %s", pid,
				 strerror(-e));
		else
			snprintf(err, errlen, "cannot open a cpu-clock event on CPU %d: %s", cpu,
				 strerror(-e));
		return e;
	}
	link = bpf_program__attach_perf_event(l->skel->progs.trec_sample, fd);
	if (!link) {
		e = -errno;
		close(fd);
		snprintf(err, errlen, "cannot attach the sampler to its perf event: %s",
			 strerror(-e));
		return e ? e : -EINVAL;
	}
	l->perf_links[l->num_perf_links++] = link;
	return 0;
}

int trec_bpf_attach_sampling(struct trec_bpf_loader *l, unsigned freq_hz,
			     char *err, size_t errlen)
{
	struct perf_event_attr attr;
	int e = trec_bpf_check_freq(freq_hz, err, errlen);

	if (e)
		return e;
	sampling_attr(l, freq_hz, &attr);
	for (int cpu = 0; cpu < l->num_cpus; cpu++) {
		if (l->cpus && (cpu >= l->cpus_len || !l->cpus[cpu]))
			continue;
		e = attach_event(l, &attr, -1, cpu, err, errlen);
		if (e == -ENODEV)
			continue; /* offline CPU */
		if (e)
			return e;
	}
	if (!l->num_perf_links) {
		snprintf(err, errlen, "no online CPU to sample");
		return -ENODEV;
	}
	l->per_task = false;
	return 0;
}

/* Appends pid's threads (/proc/PID/task) to *tids (*cap allocated). 0 (a
 * process gone has none), or -E2BIG past TASK_EVENTS_MAX, or -ENOMEM. */
static int list_threads(uint32_t pid, uint32_t **tids, size_t *n, size_t *cap)
{
	char path[40];
	struct dirent *d;
	DIR *dir;
	int e = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!e && (d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (d->d_name[0] < '1' || d->d_name[0] > '9' || *end || tid > UINT32_MAX)
			continue;
		if (*n >= TASK_EVENTS_MAX)
			e = -E2BIG;
		else if (TREC_GROW(*tids, *cap, *n + 1, 64))
			e = -ENOMEM;
		else
			(*tids)[(*n)++] = (uint32_t)tid;
	}
	closedir(dir);
	return e;
}

/* The soft fd limit raised, if need be and allowed, so that n events fit
 * beside trecord's open files: each takes two fds, the event's and its
 * BPF link's; and the files pid sync may keep open for their symbols.
 * (The command was forked before: it keeps its limit.) Past the hard
 * limit EMFILE ends in per-CPU sampling. */
static void room_for_fds(size_t n)
{
	size_t need = trec_fds_open() + 2 * n + TREC_FDS_SPARE + TREC_KEPT_FDS_MAX;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur == RLIM_INFINITY || need <= r.rlim_cur)
		return;
	r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > need ? need : r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
}

int trec_bpf_attach_sampling_tasks(struct trec_bpf_loader *l, unsigned freq_hz,
				   const struct trec_sample_target *t, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	uint32_t *tids = NULL;
	size_t n = 0, cap = 0, n_only = t->num_tids;
	int e = trec_bpf_check_freq(freq_hz, err, errlen);

	if (e)
		return e;
	if (n_only > TASK_EVENTS_MAX)
		e = -E2BIG;
	for (size_t i = 0; !e && i < t->num_pids; i++)
		e = list_threads(t->pids[i], &tids, &n, &cap);
	if (!e && n + n_only > TASK_EVENTS_MAX)
		e = -E2BIG;
	if (e == -E2BIG)
		snprintf(err, errlen, "more than %d threads to watch", TASK_EVENTS_MAX);
	else if (e)
		snprintf(err, errlen, "out of memory");
	if (!e)
		room_for_fds(n + n_only);
	sampling_attr(l, freq_hz, &attr);
	/* One listing, as perf's: a thread started later by a watched one
	 * inherits its event, and listing again would watch it twice. */
	for (size_t i = 0; !e && i < n_only + n; i++) {
		attr.inherit = i >= n_only;
		e = attach_event(l, &attr, (int)(i < n_only ? t->tids[i] : tids[i - n_only]), -1,
				 err, errlen);
		if (e == -ESRCH)
			e = 0; /* it ended meanwhile */
	}
	free(tids);
	if (e) {
		trec_bpf_detach_sampling(l);
		return e;
	}
	l->per_task = true;
	return 0;
}

void trec_bpf_detach_sampling(struct trec_bpf_loader *l)
{
	for (int i = 0; i < l->num_perf_links; i++)
		bpf_link__destroy(l->perf_links[i]);
	free(l->perf_links);
	l->perf_links = NULL;
	l->num_perf_links = 0;
	l->cap_perf_links = 0;
}
