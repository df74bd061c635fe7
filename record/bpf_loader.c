// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_map_sizes.h"
#include "record/bpf_optional.h"
#include "trec.skel.h"
#include "trec_types.h"

static bool libbpf_verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int trec_bpf_needs_root(char *err, size_t errlen, int e)
{
	snprintf(err, errlen,
		 "needs root (CAP_BPF and CAP_PERFMON) to load BPF programs: %s",
		 strerror(-e));
	return e;
}

/* The unwinder programs loaded with the object, by slot (enum
 * trec_unwinder). Interpreter unwinders come on first need: their rows
 * are in bpf_optional.c. */
static const struct {
	int slot;
	const char *name;
} unwinders[] = {
	{ TREC_PROG_UNWIND_STOP, "trec_unwind_stop" },
	{ TREC_PROG_UNWIND_NATIVE, "trec_unwind_native" },
};

/* Each unwinder exists as NAME (perf_event, unwinder_progs) and
 * NAME_offcpu (tracing, offcpu_progs): bpf/tracemgmt.h TREC_UNWINDER. */
static int fill_prog_array(struct bpf_object *obj, int fd, const char *suffix)
{
	for (size_t i = 0; i < sizeof(unwinders) / sizeof(unwinders[0]); i++) {
		char name[64];
		struct bpf_program *p;

		snprintf(name, sizeof(name), "%s%s", unwinders[i].name, suffix);
		p = bpf_object__find_program_by_name(obj, name);
		if (!p)
			return -ENOENT;
		if (bpf_map_update_elem(fd, &unwinders[i].slot, &(int){bpf_program__fd(p)}, 0))
			return -errno;
	}
	return 0;
}

/* Off-CPU programs are only loaded (and verified) with --off-cpu. */
static void set_offcpu_autoload(struct bpf_object *obj, bool on)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		size_t len = strlen(n);

		if (!strcmp(n, "trec_offcpu_switch") ||
		    (len > 7 && !strcmp(n + len - 7, "_offcpu")))
			bpf_program__set_autoload(p, on);
	}
}

int trec_bpf_load(struct trec_bpf_loader *l, const struct trec_bpf_opts *o,
		  char *err, size_t errlen)
{
	struct trec_bpf *s;
	int e;

	memset(l, 0, sizeof(*l));
	l->verbose = o->verbose;
	libbpf_verbose = o->verbose;
	libbpf_set_print(print_libbpf);
	l->num_cpus = libbpf_num_possible_cpus();
	if (l->num_cpus <= 0) {
		snprintf(err, errlen, "cannot count CPUs: %s", strerror(-l->num_cpus));
		return l->num_cpus ? l->num_cpus : -EINVAL;
	}

	s = trec_bpf__open();
	if (!s) {
		e = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-e));
		return e;
	}
	l->skel = s;
	s->rodata->follow_all = o->follow_all;
	s->rodata->self_tgid = (__u32)getpid();
	s->rodata->filter_uid = o->uid;
	s->rodata->filter_cgroup = o->cgroup_id;
	for (uint32_t i = 0; i < o->num_tids && i < TREC_MAX_FILTER_TIDS; i++)
		s->rodata->filter_tids[i] = o->tids[i];
	s->rodata->filter_num_tids = o->num_tids < TREC_MAX_FILTER_TIDS ? o->num_tids
									: TREC_MAX_FILTER_TIDS;
	if (o->report_interval_ns)
		s->rodata->report_interval_ns = o->report_interval_ns;
	if (o->max_cpu_pct > 0)
		s->rodata->budget_ns = s->rodata->budget_window_ns * o->max_cpu_pct / 100;
	s->rodata->offcpu_min_ns = o->offcpu_min_ns;
	s->rodata->defer_enabled = o->defer_unwind;
	s->rodata->trace_deltas = !o->no_trace_deltas;
	set_offcpu_autoload(s->obj, o->off_cpu);
	e = trec_bpf_size_maps(s, &(struct trec_map_need){ o->follow_all, o->rate_per_cpu });
	if (e) {
		snprintf(err, errlen, "cannot size the BPF maps: %s", strerror(-e));
		return e;
	}

	/* After set_offcpu_autoload: the optional twins stay out either way. */
	l->optional = trec_bpf_optional_defer(s->obj, o->off_cpu);
	if (!l->optional) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = trec_bpf__load(s);
	if (e) {
		if (e == -EPERM || e == -EACCES)
			return trec_bpf_needs_root(err, errlen, e);
		snprintf(err, errlen, "loading the BPF programs failed: %s%s", strerror(-e),
			 o->verbose ? "" : " (run with -v for the verifier log)");
		return e;
	}

	/* Interpreter unwinders come when needed (bpf_optional.h). */
	e = fill_prog_array(s->obj, bpf_map__fd(s->maps.unwinder_progs), "");
	if (!e && o->off_cpu)
		e = fill_prog_array(s->obj, bpf_map__fd(s->maps.offcpu_progs), "_offcpu");
	if (e) {
		snprintf(err, errlen, "cannot fill the unwinder program array: %s", strerror(-e));
		return e;
	}
	return 0;
}

int trec_bpf_attach_tracking(struct trec_bpf_loader *l, char *err, size_t errlen)
{
	struct trec_bpf *s = l->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		bool optional;
	} tps[] = {
		{ s->progs.trec_sched_fork, &s->links.trec_sched_fork, false },
		{ s->progs.trec_sched_exec, &s->links.trec_sched_exec, false },
		{ s->progs.trec_sched_exit, &s->links.trec_sched_exit, false },
		{ s->progs.trec_task_rename, &s->links.trec_task_rename, true },
		{ s->progs.trec_offcpu_switch, &s->links.trec_offcpu_switch, false },
	};

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		if (!bpf_program__autoload(tps[i].prog))
			continue; /* not asked for (--off-cpu) */
		*tps[i].link = bpf_program__attach(tps[i].prog);
		if (*tps[i].link)
			continue;
		if (tps[i].optional)
			continue; /* comm changes are nice to have */
		int e = -errno;

		snprintf(err, errlen, "cannot attach %s: %s", bpf_program__name(tps[i].prog),
			 strerror(-e));
		return e;
	}
	return 0;
}

void trec_bpf_detach_tracking(struct trec_bpf_loader *l)
{
	if (l->skel)
		trec_bpf__detach(l->skel);
}

void trec_bpf_destroy(struct trec_bpf_loader *l)
{
	trec_bpf_detach_sampling(l);
	trec_bpf_optional_free(l->optional);
	l->optional = NULL;
	if (l->skel)
		trec_bpf__destroy(l->skel);
	l->skel = NULL;
}

volatile __u64 *trec_bpf_maps_gen(struct trec_bpf_loader *l)
{
	return l->skel && l->skel->bss ? &l->skel->bss->trec_maps_gen : NULL;
}

void trec_bpf_get_fds(const struct trec_bpf_loader *l, struct trec_bpf_fds *fds)
{
#define FD(name) .name = bpf_map__fd(l->skel->maps.name)
	*fds = (struct trec_bpf_fds){
		FD(trace_events), FD(report_events), FD(metrics), FD(kernel_stackmap),
		FD(pid_page_to_mapping_info), FD(reported_pids), FD(pid_events),
		FD(inhibit_events), FD(stack_delta_pages), FD(stack_deltas),
		FD(unwind_info_array), FD(followed_pids), FD(exec_files), FD(py_procs),
		FD(interpreter_offsets), FD(php_procs), FD(perl_procs), FD(ruby_procs),
		FD(defer_files),
	};
#undef FD
}

uint64_t trec_bpf_offcpu_pending(const struct trec_bpf_loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.offcpu_pending);
	uint32_t key, next;
	uint64_t n = 0;

	for (void *prev = NULL; !bpf_map_get_next_key(fd, prev, &next) &&
				n < TREC_OFFCPU_MAX_PENDING; prev = &key, n++)
		key = next;
	return n;
}

int trec_bpf_sum_percpu(const struct trec_bpf_loader *l, int map_fd, uint64_t *out, size_t n)
{
	uint64_t *vals = calloc(l->num_cpus, sizeof(*vals));

	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(map_fd, &k, vals))
			continue;
		for (int c = 0; c < l->num_cpus; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

void trec_bpf_print_prog_stats(const struct trec_bpf_loader *l, FILE *out)
{
	trec_bpf_print_obj_stats(l->skel->obj, out);
	trec_bpf_optional_print_stats(l->optional, out);
}

void trec_bpf_print_obj_stats(struct bpf_object *obj, FILE *out)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		fprintf(out, "trecord: prog %-18s %6u insns verified, %5u xlated",
			bpf_program__name(p), info.verified_insns, info.xlated_prog_len / 8);
		if (info.run_cnt)
			fprintf(out, ", %llu runs, %llu ns/run, %.1f ms in all",
				(unsigned long long)info.run_cnt,
				(unsigned long long)(info.run_time_ns / info.run_cnt),
				info.run_time_ns / 1e6);
		fputc('\n', out);
	}
}
