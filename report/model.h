/* SPDX-License-Identifier: MIT */
/*
 * The in-memory model treport builds from one or more recordings: files by
 * file id, processes with their mapping-snapshot history, kernel symbols
 * per recording, interned stacks, and samples aggregated by
 * (recording, pid, tid, comm, stack) with counts. Outputs read only this.
 */
#ifndef RP_MODEL_H
#define RP_MODEL_H

#include <stdint.h>
#include <stdbool.h>

#include "trec_format.h"
#include "report/util.h"
#include "report/interp/interp.h"

struct rp_frame {
	uint64_t file_id; /* kernel: 0 */
	uint64_t addr;    /* ELF vaddr, kernel address, error code, raw pc */
	uint8_t kind;     /* enum trec_frame_kind */
	uint8_t flags;    /* enum trec_frame_flags */
};

/* frames[first .. first+nkernel) kernel, leaf first; then nuser user frames. */
struct rp_stack {
	uint32_t first;
	uint32_t nkernel, nuser;
};

struct rp_file {
	uint64_t file_id;
	uint32_t path;      /* string ids */
	uint32_t debuglink;
	uint64_t size, inode, mtime_ns;
	uint32_t dev_major, dev_minor;
	uint32_t build_id_len;
	uint8_t build_id[64];
};

struct rp_mapping {
	uint64_t start, end, file_offset, file_id, bias;
	uint32_t prot;
	uint32_t path; /* string id */
};

struct rp_snapshot {
	uint64_t time_ns;
	uint32_t first, num; /* into model->maps, sorted by start */
};

struct rp_process {
	uint32_t rec, pid;
	uint32_t comm; /* string id, last seen */
	struct rp_snapshot *snaps; /* sorted by time (once unsorted is cleared) */
	size_t nsnaps, capsnaps;
	bool unsorted; /* added out of time order: sorted at the next lookup */
};
/* Bounds against hostile files: META keys kept per recording (trecord
 * writes 15); snapshots a mapping lookup looks at past the one in force,
 * each way (a sample's mapping is normally in the next one or two). */
#define RP_MAX_META 256
#define RP_SNAPSHOT_SCAN 64

struct rp_ksym {
	uint64_t addr;
	uint32_t name, module; /* string ids; module 0 = core kernel */
};

struct rp_metric {
	uint32_t id;
	uint32_t name; /* string id */
	uint64_t value;
};

struct trec_pyframes;
struct rp_jit;

struct rp_recording {
	uint32_t path; /* string id */
	struct trec_header hdr;
	uint32_t *meta_keys, *meta_values;
	size_t nmeta, capmeta;
	bool meta_capped; /* past RP_MAX_META keys (warned once) */
	struct rp_ksym *ksyms; /* sorted by addr */
	size_t nksyms;
	uint64_t ksyms_time_ns;
	struct rp_metric *metrics; /* from the latest METRICS record */
	size_t nmetrics;
	uint64_t metrics_time_ns;
	bool have_summary;
	struct trec_summary summary;
	uint64_t min_ns, max_ns; /* time range of the samples and waits read */
	uint64_t cpu_min_ns, cpu_max_ns; /* and of the cpu-clock samples alone */
	/* period_ns: META sample_period_ns (else 10^9 / freq_hz); fixed_period:
	 * trecord -c, a period that is not 10^9 / freq_hz */
	uint64_t freq_hz, period_ns;
	bool fixed_period;
	/* cpu-clock samples (counted in weight), before and after filters */
	uint64_t samples_read, samples_kept;
	/* Off-CPU waits read (any --event, before filters) and their time;
	 * waits kept by the filters and --event */
	uint64_t offcpu_read, offcpu_ns_read, offcpu_kept;
	uint64_t records_by_type[16];
	struct trec_reader_stats stats;
	uint64_t pid_events;
	bool truncated;
	bool failed; /* stopped with an error (kept only with --force) */
	struct rp_interp_stores interp; /* PYCODE, INTERP_CODE (report/interp/interp.h) */
};

struct rp_agg {
	uint32_t rec, pid, tid;
	uint32_t comm;  /* string id */
	uint32_t stack; /* stack id */
	uint64_t count; /* weight: samples, or ns with --event offcpu-time */
	uint64_t hits;  /* SAMPLE records (off-CPU: waits) */
	uint64_t first_ns;
};

struct rp_event {
	uint64_t time_ns; /* an off-CPU wait's: when it began */
	uint64_t weight;  /* an off-CPU wait's: how long it lasted, ns */
	uint32_t agg;
	uint32_t cpu : 31, offcpu : 1;
};

/* A PID_EVENT record (fork, exec, exit, comm), for outputs that show them. */
struct rp_pid_event {
	uint64_t time_ns;
	uint32_t rec, kind, pid, tid, ppid; /* kind: enum trec_pid_event_kind */
	int32_t exit_code;
	uint32_t comm, filename; /* string ids */
};

struct rp_model {
	struct rp_strtab strs;

	struct rp_recording *recs;
	size_t nrecs, caprecs;

	struct rp_file *files;
	size_t nfiles, capfiles;
	struct trec_itab file_index;

	struct rp_process *procs;
	size_t nprocs, capprocs;
	struct trec_itab proc_index;

	struct rp_mapping *maps;
	size_t nmaps, capmaps;

	struct rp_frame *frames;
	size_t nframes, capframes;
	struct rp_stack *stacks;
	size_t nstacks, capstacks;
	struct trec_itab stack_index;

	struct rp_agg *aggs;
	size_t naggs, capaggs;
	struct trec_itab agg_index;

	/* Per-sample events, kept only when an output or filter needs time. */
	bool keep_events;
	struct rp_event *events;
	size_t nevents, capevents;

	uint64_t total_samples; /* sum of agg counts */

	/* Every PID_EVENT read, in file order (whatever the filters). */
	struct rp_pid_event *pid_events;
	size_t npid_events, cappid_events;

	/* Embedded symbols (SYMTAB records), created on the first one;
	 * format/archive/archive_reader.h. */
	struct trec_archive_store *archives;
	/* Names of JIT code (JITSYMS records), created on the first one;
	 * report/jit/jitsyms.h. */
	struct rp_jit *jit;
};

void rp_model_init(struct rp_model *m);
void rp_model_free(struct rp_model *m);

uint32_t rp_model_add_recording(struct rp_model *m, const char *path);
void rp_model_add_meta(struct rp_model *m, uint32_t rec, const char *key, const char *value);
/* The META value of key, or NULL. */
const char *rp_model_meta(const struct rp_model *m, uint32_t rec, const char *key);
/* The newest METRICS value named name, 0 if none. */
uint64_t rp_model_metric(const struct rp_model *m, uint32_t rec, const char *name);

/* Adds or refreshes a file; the first path and build-id for an id win. */
void rp_model_add_file(struct rp_model *m, const struct trec_file_info *f);
const struct rp_file *rp_model_file(const struct rp_model *m, uint64_t file_id);

struct rp_process *rp_model_process(struct rp_model *m, uint32_t rec, uint32_t pid, bool create);
/* Validates and stores a snapshot (mappings with end <= start are dropped). */
void rp_model_add_snapshot(struct rp_model *m, uint32_t rec, const struct trec_mapping_snapshot *s);
/* The mapping holding addr in the snapshot in force at time_ns; if that
 * one has none, in the nearest later snapshot, then the nearest earlier
 * one; or NULL. */
const struct rp_mapping *rp_model_find_mapping(const struct rp_model *m, uint32_t rec,
					       uint32_t pid, uint64_t time_ns, uint64_t addr);
/* Any mapping of file_id in any process (for pprof mapping metadata). */
const struct rp_mapping *rp_model_file_mapping(const struct rp_model *m, uint64_t file_id);

/* Interns a stack: frames[0..nkernel) kernel, then nuser user frames. */
uint32_t rp_model_intern_stack(struct rp_model *m, const struct rp_frame *frames,
			       uint32_t nkernel, uint32_t nuser);
static inline const struct rp_frame *rp_stack_frames(const struct rp_model *m, uint32_t stack)
{
	return m->frames + m->stacks[stack].first;
}

/* offcpu: a wait, whose weight is its length in ns from time_ns on. */
void rp_model_add_sample(struct rp_model *m, uint32_t rec, uint32_t pid, uint32_t tid,
			 const char *comm, uint32_t stack, uint64_t time_ns, uint32_t cpu,
			 uint64_t weight, bool offcpu);

/*
 * Keeps only events whose time relative to their recording's start is in
 * [start_rel_ns, end_rel_ns], and recounts the aggregates from them. A
 * wait keeps only its part inside the range (its weight and start cut to
 * it). Recounts each recording's samples_kept and offcpu_kept; wall: the
 * samples' weights are in ns of their period. Needs keep_events.
 */
void rp_model_filter_time(struct rp_model *m, uint64_t start_rel_ns, uint64_t end_rel_ns,
			  bool wall);

/* Recording start: the summary's start, else the earliest sample. */
uint64_t rp_recording_start(const struct rp_recording *r);

/* Indices of m->events by time, ties in file order (caller frees). */
uint32_t *rp_model_events_by_time(const struct rp_model *m);

#endif /* RP_MODEL_H */
