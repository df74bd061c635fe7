// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/archive/archive.h"
#include "record/clock.h"
#include "record/flight/flight.h"
#include "record/flight/flight_file.h"
#include "record/io/metrics.h"
#include "record/io/output.h"
#include "record/syncer.h"

/* A window holds ~10 segments of at most a second (up to 1000 for a window
 * over 1000 s): a switched file covers the window less at most one
 * segment. Rotation ends a segment every second (what a SIGKILL can lose
 * of the file being written). */
#define SEGMENTS_PER_WINDOW 10
#define SEGMENT_MIN_NS 100000000ULL
#define SEGMENT_MAX_NS 1000000000ULL
/* Memory cap of the window's segments (compressed): past it the oldest
 * goes early, counted in FLIGHT_SAMPLES_CUT. */
#define WINDOW_MAX_BYTES (256ULL << 20)
#define WINDOW_SEGMENTS_MAX 1000
#define MAX_SEGMENTS 1024
#define JIT_WAIT_NS 1000000000ULL

struct segment {
	struct trec_memfile mf;
	uint64_t start_ns, samples;
};

struct trec_flight {
	struct trec_flight_opts o;
	struct trec_flight_ctx x;
	struct trec_output *out;
	struct trec_memfile cur;      /* being written: its writer is out->w */
	uint64_t cur_start;
	struct segment segs[MAX_SEGMENTS]; /* ended, oldest first */
	size_t nsegs;
	uint64_t seg_bytes;
	struct trec_flight_state state;
	struct trec_flight_file file; /* rotation: the file being written */
	bool file_open;
	uint64_t file_start, seg_ns, next_switch, prev_lost;
	unsigned switches_seen, files;
	uint64_t samples_out;
	bool failed;                  /* a write failed: said once, the recording stops */
	char **names;                 /* --switch-max-files: the newest, a ring */
	unsigned next_name;
};

static int new_segment(struct trec_flight *f, uint64_t now)
{
	int err = trec_memfile_create(&f->cur, "trec-segment");

	if (!err)
		f->cur_start = now;
	return err;
}

/* A directory the files cannot go to fails now, not at the first switch. */
static int probe_dir(const char *path, char *msg, size_t msglen)
{
	char tmp[PATH_MAX];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.partial-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "cannot create %s.TIMESTAMP: %s", path, strerror(-err));
		return err;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

int trec_flight_open(struct trec_flight **fp, const struct trec_flight_opts *o,
		     const struct trec_flight_ctx *x, struct trec_output *out,
		     char *msg, size_t msglen)
{
	struct trec_flight *f = calloc(1, sizeof(*f));
	uint64_t now = trec_now_ns();
	int err;

	*fp = NULL;
	if (!f || (o->max_files && !(f->names = calloc(o->max_files, sizeof(char *))))) {
		free(f);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	f->o = *o;
	f->x = *x;
	f->out = out;
	f->state.mf.fd = -1;
	f->cur.fd = -1;
	f->seg_ns = o->overwrite ? (uint64_t)(o->window_s * 1e9) / SEGMENTS_PER_WINDOW
				 : SEGMENT_MAX_NS;
	if (f->seg_ns < SEGMENT_MIN_NS)
		f->seg_ns = SEGMENT_MIN_NS;
	if (f->seg_ns > SEGMENT_MAX_NS)
		f->seg_ns = SEGMENT_MAX_NS;
	/* a long window in at most ~1000 segments */
	if (o->overwrite && f->seg_ns < (uint64_t)(o->window_s * 1e9) / WINDOW_SEGMENTS_MAX)
		f->seg_ns = (uint64_t)(o->window_s * 1e9) / WINDOW_SEGMENTS_MAX;
	if (o->switch_kind == TREC_SWITCH_TIME)
		f->next_switch = now + o->switch_ns;
	f->file_start = now;
	err = probe_dir(x->path, msg, msglen);
	if (err) {
		trec_flight_free(f);
		return err;
	}
	err = new_segment(f, now);
	if (err) {
		snprintf(msg, msglen, "cannot keep the recording in memory: %s", strerror(-err));
		trec_flight_free(f);
		return err;
	}
	trec_output_open_writer(out, x->path, f->cur.w);
	*fp = f;
	return 0;
}

/* Ends the segment being written and starts the next. */
static int seal(struct trec_flight *f, uint64_t now)
{
	struct segment *s;
	struct trec_memfile next;
	struct trec_writer *old;
	uint64_t first;
	int err;

	if (f->nsegs == MAX_SEGMENTS)
		return 0; /* the caller drains first */
	err = trec_memfile_create(&next, "trec-segment");
	if (err)
		return err;
	old = trec_output_swap(f->out, next.w);
	s = &f->segs[f->nsegs++];
	s->samples = trec_writer_samples(old, &first);
	/* samples wait in the queue: a segment can hold older ones */
	s->start_ns = s->samples && first < f->cur_start ? first : f->cur_start;
	s->mf = f->cur;
	f->cur = next;
	f->cur_start = now;
	err = trec_memfile_seal(&s->mf);
	if (!err)
		err = trec_memfile_map(&s->mf);
	f->seg_bytes += trec_memfile_bytes(&s->mf);
	return err;
}

/* Removes the oldest segment: into the file being written, or evicted. */
static int drain_oldest(struct trec_flight *f, bool to_file, uint64_t now)
{
	struct segment *s = &f->segs[0];
	/* Exits a second old free their process's state (late samples of a
	 * process come within that). */
	uint64_t cut = now > SEGMENT_MAX_NS ? now - SEGMENT_MAX_NS : 0;
	int err = to_file ? trec_flight_file_add(&f->file, &f->state, &s->mf, cut)
			  : trec_flight_state_absorb(&f->state, &s->mf, cut, NULL, NULL);

	f->seg_bytes -= trec_memfile_bytes(&s->mf);
	trec_memfile_free(&s->mf);
	memmove(f->segs, f->segs + 1, --f->nsegs * sizeof(*s));
	return err;
}

static int open_file(struct trec_flight *f, uint64_t now)
{
	char msg[PATH_MAX + 128];
	int err;

	if (f->file_open)
		return 0;
	/* the caller says what failed (write_failed) */
	err = trec_flight_file_open(&f->file, f->x.path, f->x.archive_level, &f->state, msg,
				    sizeof(msg));
	if (err)
		return err;
	f->file_open = true;
	f->file_start = f->nsegs ? f->segs[0].start_ns : now;
	return 0;
}

/* --switch-max-files: the newest N stay. */
static void keep_newest(struct trec_flight *f, const char *name)
{
	char **slot;

	if (!f->o.max_files)
		return;
	slot = &f->names[f->next_name];
	f->next_name = (f->next_name + 1) % f->o.max_files;
	if (*slot) {
		unlink(*slot);
		free(*slot);
	}
	*slot = strdup(name);
}

/* The sync thread reads the names of the JIT code samples hit in the
 * processes still running, into the segment being written (a bounded
 * wait: a slow read leaves them to the next file). */
static void read_jit_names(struct trec_flight *f)
{
	struct trec_syncer *y = f->x.syncer;
	unsigned mark = atomic_load(&y->marks_done);
	uint64_t until = trec_now_ns() + JIT_WAIT_NS;

	if (!y->x.jit || trec_syncer_request(y, TREC_SYNC_JIT, 0) ||
	    trec_syncer_request(y, TREC_SYNC_MARK, 0))
		return;
	while (atomic_load(&y->marks_done) == mark && trec_now_ns() < until)
		usleep(2000);
}

/* Writes what memory holds as one file. sum: the recording's end, or NULL
 * for a switch while it goes on. */
static int switch_file(struct trec_flight *f, uint64_t now, const struct trec_summary *end)
{
	uint64_t bpf[TREC_METRIC_COUNT] = { 0 }, lost;
	struct trec_summary sum = {
		.exit_status = -1,
		.flags = TREC_SUMMARY_FLAGS(TREC_STOP_SWITCH, 0),
	};
	struct trec_archive_totals at;
	char name[PATH_MAX + 64];
	int err;

	if (!end)
		read_jit_names(f);
	err = seal(f, now);
	if (!err)
		err = open_file(f, now);
	while (!err && f->nsegs)
		err = drain_oldest(f, true, now);
	if (trec_metrics_read_bpf(f->x.bpf, f->x.metrics_fd, bpf))
		memset(bpf, 0, sizeof(bpf));
	if (!err)
		err = trec_metrics_write_to(f->file.w, bpf, f->x.cnt, now);
	lost = bpf[TREC_METRIC_TRACES_LOST_RINGBUF];
	if (end) {
		sum.exit_status = end->exit_status;
		sum.flags = end->flags;
	}
	sum.start_ns = f->file_start;
	sum.end_ns = end ? end->end_ns : now;
	sum.lost = lost - f->prev_lost;
	f->prev_lost = lost;
	if (!err)
		err = trec_flight_file_close(&f->file, f->x.path, f->x.archive_level, &sum, &at,
					     name, sizeof(name));
	if (err)
		return err; /* (the file stays open for write_failed to keep) */
	f->file_open = false;
	f->files++;
	f->samples_out += sum.samples;
	trecord_count(f->x.cnt, TRECORD_METRIC_FLIGHT_FILES, 1);
	keep_newest(f, name);
	if (!f->x.quiet)
		fprintf(stderr, "[ trecord: wrote %s (%llu samples) ]\n", name,
			(unsigned long long)sum.samples);
	f->file_start = now;
	if (f->o.switch_kind == TREC_SWITCH_TIME)
		f->next_switch = now + f->o.switch_ns;
	return 0;
}

/* --overwrite: what is older than the window (or over the cap) goes. */
static int evict(struct trec_flight *f, uint64_t now)
{
	uint64_t from = (uint64_t)(f->o.window_s * 1e9);
	int err = 0;

	from = now > from ? now - from : 0;
	while (!err && f->nsegs && (f->segs[0].start_ns < from || f->seg_bytes > WINDOW_MAX_BYTES ||
				    f->nsegs == MAX_SEGMENTS)) {
		bool early = f->segs[0].start_ns >= from;

		trecord_count(f->x.cnt, early ? TRECORD_METRIC_FLIGHT_SAMPLES_CUT
					      : TRECORD_METRIC_FLIGHT_SAMPLES_EVICTED,
			      f->segs[0].samples);
		err = drain_oldest(f, false, now);
	}
	return err;
}

/* One message for whatever failed: writing a file, or memory for one. The
 * file being written keeps what it holds, as a plain recording does on a
 * full disk. */
static int write_failed(struct trec_flight *f, int err)
{
	char name[PATH_MAX + 64] = "";

	if (err && !f->failed) {
		if (f->file_open)
			trec_flight_file_keep(&f->file, f->x.path, name, sizeof(name));
		f->file_open = false;
		if (name[0])
			fprintf(stderr, "trecord: writing %s failed: %s (it keeps what was "
				"written before)\n", name, strerror(-err));
		else
			fprintf(stderr, "trecord: writing %s.* failed: %s\n", f->x.path,
				strerror(-err));
	}
	f->failed |= err != 0;
	return err;
}

/* An earlier failure: ours (said already), or a segment the writer could
 * not write (memory full). After it nothing more is published. */
static int failed_before(struct trec_flight *f)
{
	return f->failed ? -EIO : trec_output_error(f->out);
}

static int tick(struct trec_flight *f, uint64_t now, bool want)
{
	int err = 0;

	if (want || now - f->cur_start >= f->seg_ns)
		err = seal(f, now);
	/* what is older than the window stays out of every file */
	if (!err && f->o.overwrite)
		err = evict(f, now);
	/* rotation: segments go to the file as they end */
	if (!err && !f->o.overwrite && f->nsegs)
		err = open_file(f, now);
	while (!err && !f->o.overwrite && f->nsegs)
		err = drain_oldest(f, true, now);
	if (!err && f->o.switch_kind == TREC_SWITCH_SIZE && f->file_open &&
	    trec_writer_bytes(f->file.w) >= f->o.switch_bytes)
		want = true;
	return err || !want ? err : switch_file(f, now, NULL);
}

int trec_flight_tick(struct trec_flight *f, uint64_t now, unsigned switch_requests)
{
	bool want = switch_requests != f->switches_seen;

	f->switches_seen = switch_requests;
	if (f->o.switch_kind == TREC_SWITCH_TIME && now >= f->next_switch)
		want = true;
	int err = failed_before(f);
	return write_failed(f, err ? err : tick(f, now, want));
}

int trec_flight_finish(struct trec_flight *f, const struct trec_summary *sum)
{
	uint64_t now = trec_now_ns();
	/* after a failed write, what memory holds is not written: the
	 * message is given once, trecord exits 1 */
	int err = failed_before(f);

	if (!err)
		err = seal(f, now);

	if (!err && f->o.overwrite)
		err = evict(f, now);
	if (!err)
		err = switch_file(f, now, sum);

	/* The threads are done: nothing writes to out from here on. */
	trec_output_swap(f->out, NULL);
	trec_memfile_seal(&f->cur);
	return write_failed(f, err);
}

void trec_flight_print_summary(const struct trec_flight *f, FILE *out)
{
	uint64_t old = atomic_load(&f->x.cnt->v[TRECORD_METRIC_FLIGHT_SAMPLES_EVICTED]);
	uint64_t cut = atomic_load(&f->x.cnt->v[TRECORD_METRIC_FLIGHT_SAMPLES_CUT]);

	if (f->o.overwrite)
		fprintf(out, ", %llu older than the %gs window dropped", (unsigned long long)old,
			f->o.window_s);
	if (cut)
		fprintf(out, ", %llu dropped early (window memory cap)", (unsigned long long)cut);
	fprintf(out, ", wrote %u file%s %s.* (%llu samples) ]\n", f->files,
		f->files == 1 ? "" : "s", f->x.path, (unsigned long long)f->samples_out);
}

void trec_flight_free(struct trec_flight *f)
{
	if (!f)
		return;
	if (f->cur.w)
		trec_output_swap(f->out, NULL);
	if (f->file_open)
		trec_flight_file_abandon(&f->file);
	for (size_t i = 0; i < f->nsegs; i++)
		trec_memfile_free(&f->segs[i].mf);
	trec_memfile_free(&f->cur);
	trec_flight_state_free(&f->state);
	for (unsigned i = 0; f->names && i < f->o.max_files; i++)
		free(f->names[i]);
	free(f->names);
	free(f);
}
