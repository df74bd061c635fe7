/* SPDX-License-Identifier: MIT */
/*
 * The byte layout of a perf.data file as perf 6.1 reads it (tools/perf/
 * Documentation/perf.data-file-format.txt): the file header, one attr per
 * event with its id, the record stream, and the feature sections. Only
 * what a sampled callchain profile needs; no knowledge of trec's model.
 *
 * Every event is sampled with IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN
 * and sample_id_all, so a second event (an off-CPU one) is one more entry
 * in the events array and samples name theirs by index.
 */
#ifndef RP_PERF_DATA_WRITE_H
#define RP_PERF_DATA_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Callchain context markers (include/uapi/linux/perf_event.h). */
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)

#define PD_CPUMODE_KERNEL 1
#define PD_CPUMODE_USER 2

/* The longest build-id perf.data records carry. */
#define PD_BUILD_ID_MAX 20

/* Callchain entries one SAMPLE record can hold (its u16 size). */
#define PD_MAX_CALLCHAIN ((0xffffu - 64u) / 8u)

struct pd_event {
	const char *name;  /* "cpu-clock" (EVENT_DESC) */
	uint32_t type;     /* PERF_TYPE_* */
	uint64_t config;   /* PERF_COUNT_* */
	uint64_t freq_hz;  /* sampled at this frequency, or 0: */
	uint64_t period;   /* a fixed period */
};

/* Facts for the header features; NULL strings are left out. */
struct pd_host {
	const char *hostname, *os_release, *arch, *version;
	uint32_t nr_cpus;
	const char *const *cmdline; /* NULL-terminated */
	uint64_t first_sample_ns, last_sample_ns;
};

struct pd_writer;

/* Starts a file on out, which must be seekable (the header is rewritten at
 * the end). NULL with a message in err when it is not. */
struct pd_writer *pd_open(FILE *out, const struct pd_event *events, uint32_t nevents,
			  char *err, size_t errlen);

/* Records. time_ns is the record's sample_id time. pid/tid UINT32_MAX is -1. */
void pd_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec,
	     uint64_t time_ns);
void pd_fork(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time_ns);
void pd_exit(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time_ns);
/* An executable user mapping; build_id_len 1..20 puts it in the record. */
void pd_mmap2(struct pd_writer *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      const uint8_t *build_id, uint32_t build_id_len, const char *filename,
	      uint64_t time_ns);
/* The kernel's map (MMAP, pid -1) from start to the end of the address
 * space, "[kernel.kallsyms]_text" with _text at start. */
void pd_kernel_mmap(struct pd_writer *w, uint64_t start, uint64_t time_ns);
/* chain: nchain entries with context markers, leaf first (at most
 * PD_MAX_CALLCHAIN); ip and cpumode are the leaf's. */
void pd_sample(struct pd_writer *w, uint32_t event, uint32_t pid, uint32_t tid, uint32_t cpu,
	       uint64_t time_ns, uint64_t period, uint64_t ip, uint8_t cpumode,
	       const uint64_t *chain, uint32_t nchain);
/* Lets perf sort and flush what came before (the stream is in time order). */
void pd_finished_round(struct pd_writer *w);

/* A DSO of the build-id table (HEADER_BUILD_ID). */
void pd_build_id(struct pd_writer *w, const char *filename, const uint8_t *build_id,
		 uint32_t len, bool kernel);

/* Writes the features, rewrites the header and frees w. 0, or -1 when a
 * write failed (the caller reports it). */
int pd_close(struct pd_writer *w, const struct pd_host *host);

#endif /* RP_PERF_DATA_WRITE_H */
