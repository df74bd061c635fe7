// SPDX-License-Identifier: MIT
/*
 * perf.data bytes (see perf_data_write.h). Layout, as perf record writes
 * it: the 104-byte header, the id of each event, the attrs (each 128 bytes
 * plus the section of its ids), the record stream, then at data.offset +
 * data.size the feature index and the feature payloads. Records are built
 * in a small buffer and written in the host's byte order, which perf
 * detects from the magic.
 */
#include "report/output/perf_data/perf_data_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "report/util.h"

#define ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7: the largest perf 6.1 reads */
#define HEADER_SIZE 104
#define NAME_ALIGN 64 /* strings and build-id file names (perf's NAME_ALIGN) */

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
	FEAT_BITS = 256,
};

#define SAMPLE_TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ID_BASE 1 /* event i has id ID_BASE + i */

struct pd_writer {
	FILE *out;
	const struct pd_event *events;
	uint32_t nevents;
	uint64_t data_offset, off; /* off: bytes written so far */
	struct rp_buf rec;         /* the record being built */
	struct rp_buf build_ids;   /* HEADER_BUILD_ID payload */
	int err;
};

static void put(struct rp_buf *b, const void *p, size_t n)
{
	rp_buf_add(b, p, n);
}
static void put64(struct rp_buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct rp_buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct rp_buf *b, uint16_t v) { put(b, &v, 2); }
static void pad_to(struct rp_buf *b, size_t start, size_t align)
{
	static const char zeros[NAME_ALIGN];
	size_t n = (b->len - start) % align;
	if (n)
		put(b, zeros, align - n);
}

static void emit(struct pd_writer *w, const void *p, size_t n)
{
	if (!w->err && fwrite(p, 1, n, w->out) != n)
		w->err = errno ? errno : EIO;
	w->off += n;
}

/* ---- records ----------------------------------------------------------------- */

static void rec_begin(struct pd_writer *w, uint32_t type, uint16_t misc)
{
	rp_buf_reset(&w->rec);
	put32(&w->rec, type);
	put16(&w->rec, misc);
	put16(&w->rec, 0); /* size, set by rec_end */
}

/* The sample_id trailer of a non-sample record: TID, TIME, CPU, IDENTIFIER. */
static void rec_trailer(struct pd_writer *w, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	put32(&w->rec, pid);
	put32(&w->rec, tid);
	put64(&w->rec, time_ns);
	put32(&w->rec, 0); /* cpu: not known for process events */
	put32(&w->rec, 0);
	put64(&w->rec, ID_BASE);
}

static void rec_end(struct pd_writer *w)
{
	pad_to(&w->rec, 0, 8);
	if (w->rec.len > 0xffff) { /* callers bound their records; never write a broken one */
		w->err = w->err ? w->err : EOVERFLOW;
		return;
	}
	uint16_t size = (uint16_t)w->rec.len;
	memcpy(w->rec.p + 6, &size, 2);
	emit(w, w->rec.p, w->rec.len);
}

/* A NUL-terminated string padded to 8, at most max bytes of it. */
static void put_name(struct rp_buf *b, const char *s, size_t max)
{
	size_t start = b->len, n = strnlen(s, max);
	put(b, s, n);
	put(b, "", 1);
	pad_to(b, start, 8);
}

void pd_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec,
	     uint64_t time_ns)
{
	rec_begin(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(&w->rec, pid);
	put32(&w->rec, tid);
	put_name(&w->rec, comm, 15);
	rec_trailer(w, pid, tid, time_ns);
	rec_end(w);
}

static void task(struct pd_writer *w, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time_ns)
{
	rec_begin(w, type, 0);
	put32(&w->rec, pid);
	put32(&w->rec, ppid);
	put32(&w->rec, tid);
	put32(&w->rec, ptid);
	put64(&w->rec, time_ns);
	rec_trailer(w, pid, tid, time_ns);
	rec_end(w);
}

void pd_fork(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time_ns)
{
	task(w, PERF_RECORD_FORK, pid, ppid, tid, ptid, time_ns);
}

void pd_exit(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time_ns)
{
	task(w, PERF_RECORD_EXIT, pid, ppid, tid, ptid, time_ns);
}

void pd_mmap2(struct pd_writer *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      const uint8_t *build_id, uint32_t build_id_len, const char *filename,
	      uint64_t time_ns)
{
	bool with_id = build_id && build_id_len && build_id_len <= PD_BUILD_ID_MAX;
	rec_begin(w, PERF_RECORD_MMAP2,
		  PERF_RECORD_MISC_USER | (with_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(&w->rec, pid);
	put32(&w->rec, pid);
	put64(&w->rec, start);
	put64(&w->rec, len);
	put64(&w->rec, pgoff);
	uint8_t u[24] = { 0 }; /* {maj, min, ino, ino_generation} or {size, res, id[20]} */
	if (with_id) {
		u[0] = (uint8_t)build_id_len;
		memcpy(u + 4, build_id, build_id_len);
	}
	put(&w->rec, u, sizeof(u));
	put32(&w->rec, 5); /* PROT_READ | PROT_EXEC */
	put32(&w->rec, 2); /* MAP_PRIVATE */
	put_name(&w->rec, filename, 4095);
	rec_trailer(w, pid, pid, time_ns);
	rec_end(w);
}

void pd_kernel_mmap(struct pd_writer *w, uint64_t start, uint64_t time_ns)
{
	rec_begin(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32(&w->rec, UINT32_MAX);
	put32(&w->rec, 0);
	put64(&w->rec, start);
	put64(&w->rec, UINT64_MAX - start); /* end ~0: perf's own "whole kernel" */
	put64(&w->rec, start); /* pgoff: the address of the reference symbol _text */
	put_name(&w->rec, "[kernel.kallsyms]_text", 64);
	rec_trailer(w, UINT32_MAX, UINT32_MAX, time_ns);
	rec_end(w);
}

void pd_sample(struct pd_writer *w, uint32_t event, uint32_t pid, uint32_t tid, uint32_t cpu,
	       uint64_t time_ns, uint64_t period, uint64_t ip, uint8_t cpumode,
	       const uint64_t *chain, uint32_t nchain)
{
	if (nchain > PD_MAX_CALLCHAIN)
		nchain = PD_MAX_CALLCHAIN;
	rec_begin(w, PERF_RECORD_SAMPLE, cpumode);
	put64(&w->rec, ID_BASE + event);
	put64(&w->rec, ip);
	put32(&w->rec, pid);
	put32(&w->rec, tid);
	put64(&w->rec, time_ns);
	put32(&w->rec, cpu);
	put32(&w->rec, 0);
	put64(&w->rec, period);
	put64(&w->rec, nchain);
	put(&w->rec, chain, (size_t)nchain * 8);
	rec_end(w);
}

void pd_finished_round(struct pd_writer *w)
{
	rec_begin(w, 68 /* PERF_RECORD_FINISHED_ROUND (perf's own type) */, 0);
	rec_end(w);
}

/* ---- header, attrs, features ---------------------------------------------- */

static void put_attr(struct rp_buf *b, const struct pd_event *e)
{
	size_t start = b->len;
	put32(b, e->type);
	put32(b, ATTR_SIZE);
	put64(b, e->config);
	put64(b, e->freq_hz ? e->freq_hz : e->period);
	put64(b, SAMPLE_TYPE);
	put64(b, 0); /* read_format */
	uint64_t flags = 1ull << 1 /* inherit */ | 1ull << 8 /* mmap */ | 1ull << 9 /* comm */ |
			 1ull << 13 /* task */ | 1ull << 18 /* sample_id_all */ |
			 1ull << 23 /* mmap2 */ | 1ull << 24 /* comm_exec */ |
			 1ull << 25 /* use_clockid */ | 1ull << 34 /* build_id */;
	if (e->freq_hz)
		flags |= 1ull << 10;
	put64(b, flags);
	while (b->len - start < 92)
		put32(b, 0); /* wakeup, bp_type, config1/2, branch, regs_user, stack_user */
	put32(b, 1); /* clockid: CLOCK_MONOTONIC, as trec's times */
	while (b->len - start < ATTR_SIZE)
		put32(b, 0);
}

static void put_string(struct rp_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	put32(b, (uint32_t)len);
	size_t start = b->len;
	put(b, s, n);
	pad_to(b, start, NAME_ALIGN);
}

struct pd_writer *pd_open(FILE *out, const struct pd_event *events, uint32_t nevents,
			  char *err, size_t errlen)
{
	if (fseeko(out, 0, SEEK_SET)) {
		snprintf(err, errlen, "perf.data needs a regular file to write to (-o FILE): %s",
			 strerror(errno));
		return NULL;
	}
	struct pd_writer *w = xcalloc(1, sizeof(*w));
	w->out = out;
	w->events = events;
	w->nevents = nevents;
	struct rp_buf b = { 0 };
	char zeros[HEADER_SIZE] = { 0 };
	put(&b, zeros, HEADER_SIZE); /* rewritten by pd_close */
	uint64_t ids_off = b.len;
	for (uint32_t i = 0; i < nevents; i++)
		put64(&b, ID_BASE + i);
	for (uint32_t i = 0; i < nevents; i++) {
		put_attr(&b, &events[i]);
		put64(&b, ids_off + 8 * i); /* its ids: one */
		put64(&b, 8);
	}
	emit(w, b.p, b.len);
	w->data_offset = w->off;
	rp_buf_free(&b);
	return w;
}

void pd_build_id(struct pd_writer *w, const char *filename, const uint8_t *build_id,
		 uint32_t len, bool kernel)
{
	struct rp_buf *b = &w->build_ids;
	if (!len || len > PD_BUILD_ID_MAX)
		return;
	size_t start = b->len;
	put32(b, 0); /* type: perf leaves it 0 here */
	put16(b, (kernel ? PD_CPUMODE_KERNEL : PD_CPUMODE_USER) | 1u << 15 /* MISC_BUILD_ID_SIZE */);
	put16(b, 0); /* size, below */
	put32(b, UINT32_MAX); /* pid -1: the host */
	uint8_t id[24] = { 0 };
	memcpy(id, build_id, len);
	id[20] = (uint8_t)len;
	put(b, id, sizeof(id));
	size_t name = b->len;
	put(b, filename, strnlen(filename, 4095));
	put(b, "", 1);
	pad_to(b, name, NAME_ALIGN);
	uint16_t size = (uint16_t)(b->len - start);
	memcpy(b->p + start + 6, &size, 2);
}

static void feature(struct rp_buf *payloads, uint64_t *index, int *nfeat, uint64_t *bits,
		    int bit, const struct rp_buf *body)
{
	index[2 * *nfeat] = payloads->len; /* relative; made absolute by pd_close */
	index[2 * *nfeat + 1] = body->len;
	(*nfeat)++;
	bits[bit / 64] |= 1ull << (bit % 64);
	put(payloads, body->p, body->len);
}

int pd_close(struct pd_writer *w, const struct pd_host *host)
{
	uint64_t data_size = w->off - w->data_offset, bits[FEAT_BITS / 64] = { 0 }, index[2 * 16];
	struct rp_buf pl = { 0 }, f = { 0 };
	int nfeat = 0;
	/* In bit order: perf reads the index by ascending bit. */
	if (w->build_ids.len)
		feature(&pl, index, &nfeat, bits, FEAT_BUILD_ID, &w->build_ids);
	const struct { int bit; const char *s; } strs[] = {
		{ FEAT_HOSTNAME, host->hostname }, { FEAT_OSRELEASE, host->os_release },
		{ FEAT_VERSION, host->version }, { FEAT_ARCH, host->arch },
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (!strs[i].s || !strs[i].s[0])
			continue;
		f.len = 0;
		put_string(&f, strs[i].s);
		feature(&pl, index, &nfeat, bits, strs[i].bit, &f);
	}
	if (host->nr_cpus) {
		f.len = 0;
		put32(&f, host->nr_cpus);
		put32(&f, host->nr_cpus);
		feature(&pl, index, &nfeat, bits, FEAT_NRCPUS, &f);
	}
	if (host->cmdline) {
		uint32_t n = 0;
		while (host->cmdline[n])
			n++;
		f.len = 0;
		put32(&f, n);
		for (uint32_t i = 0; i < n; i++)
			put_string(&f, host->cmdline[i]);
		feature(&pl, index, &nfeat, bits, FEAT_CMDLINE, &f);
	}
	f.len = 0;
	put32(&f, w->nevents);
	put32(&f, ATTR_SIZE);
	for (uint32_t i = 0; i < w->nevents; i++) {
		put_attr(&f, &w->events[i]);
		put32(&f, 1);
		put_string(&f, w->events[i].name);
		put64(&f, ID_BASE + i);
	}
	feature(&pl, index, &nfeat, bits, FEAT_EVENT_DESC, &f);
	if (host->last_sample_ns) {
		f.len = 0;
		put64(&f, host->first_sample_ns);
		put64(&f, host->last_sample_ns);
		feature(&pl, index, &nfeat, bits, FEAT_SAMPLE_TIME, &f);
	}
	uint64_t payload_off = w->off + 16 * (uint64_t)nfeat;
	for (int i = 0; i < nfeat; i++)
		index[2 * i] += payload_off;
	emit(w, index, 16 * (size_t)nfeat);
	emit(w, pl.p, pl.len);

	struct rp_buf h = { 0 };
	put(&h, "PERFILE2", 8);
	put64(&h, HEADER_SIZE);
	put64(&h, ATTR_SIZE + 16);
	put64(&h, HEADER_SIZE + 8 * (uint64_t)w->nevents); /* attrs */
	put64(&h, (ATTR_SIZE + 16) * (uint64_t)w->nevents);
	put64(&h, w->data_offset);
	put64(&h, data_size);
	put64(&h, 0); /* event_types: unused */
	put64(&h, 0);
	put(&h, bits, sizeof(bits));
	if (!w->err && (fflush(w->out) || fseeko(w->out, 0, SEEK_SET) ||
			fwrite(h.p, 1, h.len, w->out) != h.len || fseeko(w->out, 0, SEEK_END)))
		w->err = errno ? errno : EIO;
	int rc = w->err ? -1 : 0;
	if (w->err)
		errno = w->err;
	rp_buf_free(&h);
	rp_buf_free(&pl);
	rp_buf_free(&f);
	rp_buf_free(&w->rec);
	rp_buf_free(&w->build_ids);
	free(w);
	return rc;
}
