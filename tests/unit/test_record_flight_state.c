// SPDX-License-Identifier: MIT
/* The flight recorder's parts: what the state keeps of a segment that
 * leaves memory (record/flight/state.c), and chunks copied from one
 * recording into another (trec_writer_copy_chunks) reading back whole. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/flight/memfile.h"
#include "record/flight/state.h"
#include "unit_check.h"

static const struct trec_mapping one_map = {
	.start = 0x400000, .end = 0x401000, .file_id = 7, .prot = 5, .path = "/bin/x",
};

static void put_mappings(struct trec_writer *w, uint32_t pid, uint64_t t)
{
	struct trec_mapping_snapshot s = { .time_ns = t, .pid = pid, .num_mappings = 1,
					   .mappings = &one_map };

	trec_write_mappings(w, &s);
}

static void put_exit(struct trec_writer *w, uint32_t pid, uint64_t t)
{
	struct trec_pid_event e = { .time_ns = t, .kind = TREC_PEV_EXIT, .pid = pid, .tid = pid,
				    .filename = "" };

	trec_write_pid_event(w, &e);
}

static void put_pycode(struct trec_writer *w, uint32_t pid)
{
	uint8_t data[8] = { (uint8_t)pid, (uint8_t)(pid >> 8), 0, 0, 1, 2, 3, 4 };
	struct trec_blob b = { .file_id = 0x1000 + pid, .subtype = 1, .len = sizeof(data),
			       .data = data };

	trec_write_blob(w, TREC_REC_PYCODE, &b);
}

/* An INTERP_CODE payload of SUBTYPE for pid (its first 4 bytes). */
static void put_interp(struct trec_writer *w, uint32_t pid, uint32_t subtype)
{
	uint8_t data[8] = { (uint8_t)pid, (uint8_t)(pid >> 8), 0, 0, 5, 6, 7, 8 };
	struct trec_blob b = { .file_id = 0x2000 + pid, .subtype = subtype, .len = sizeof(data),
			       .data = data };

	trec_write_blob(w, TREC_REC_INTERP_CODE, &b);
}

static void put_sample(struct trec_writer *w, uint32_t pid, uint64_t t)
{
	struct trec_rec_frame f = { .file_id = 7, .addr = 0x1234, .kind = 3 };
	struct trec_sample s = { .time_ns = t, .pid = pid, .tid = pid, .weight = 1,
				 .num_user_frames = 1, .user_frames = &f };

	trec_write_sample(w, &s);
}

/* One segment of everything the state sorts out. */
static void write_segment(struct trec_memfile *m)
{
	struct trec_meta_entry e = { "k", "v" };
	struct trec_meta meta = { 1, &e };
	struct trec_file_info fi = { .file_id = 7, .path = "/bin/x", .debuglink = "" };
	struct trec_ksym ks = { 0xffff0000, 'T', "f", "" };
	struct trec_ksyms k1 = { 1, 1, &ks }, k2 = { 2, 1, &ks };

	trec_memfile_create(m, "test-seg");
	trec_write_meta(m->w, &meta);
	trec_write_file(m->w, &fi);
	trec_write_file(m->w, &fi);        /* the same id twice */
	put_mappings(m->w, 1, 100);
	put_mappings(m->w, 1, 500);        /* pid 1's newest */
	put_mappings(m->w, 2, 200);
	put_pycode(m->w, 2);
	put_interp(m->w, 2, 2);            /* Perl, Ruby, PHP code of pid 2 */
	put_interp(m->w, 2, 3);
	put_interp(m->w, 2, 4);
	put_interp(m->w, 2, 99);           /* a subtype trecord does not write */
	put_interp(m->w, 1, 4);            /* PHP code of a live process */
	put_exit(m->w, 2, 300);            /* pid 2 gone before the cut */
	put_mappings(m->w, 3, 200);
	put_exit(m->w, 3, 300);
	put_mappings(m->w, 3, 400);        /* pid 3 reused: a new process */
	put_mappings(m->w, 4, 200);
	put_exit(m->w, 4, 5000);           /* pid 4 gone after the cut: kept for now */
	trec_write_ksyms(m->w, &k1);
	trec_write_ksyms(m->w, &k2);
	put_sample(m->w, 1, 600);
	put_sample(m->w, 1, 700);
	trec_memfile_seal(m);
	trec_memfile_map(m);
}

struct tally {
	int meta, files, samples, events, pycode, ksyms, interp, interp_unknown;
	uint64_t map_time[5], ksyms_time;
};

static int count(void *ctx, const struct trec_record *r)
{
	struct tally *t = ctx;

	switch (r->type) {
	case TREC_REC_META: t->meta++; break;
	case TREC_REC_FILE: t->files++; break;
	case TREC_REC_SAMPLE: t->samples++; break;
	case TREC_REC_PID_EVENT: t->events++; break;
	case TREC_REC_PYCODE: t->pycode++; break;
	case TREC_REC_INTERP_CODE:
		t->interp++;
		t->interp_unknown += r->u.blob.subtype == 99;
		break;
	case TREC_REC_KSYMS: t->ksyms++; t->ksyms_time = r->u.ksyms.time_ns; break;
	case TREC_REC_MAPPINGS:
		if (r->u.mappings.pid < 5)
			t->map_time[r->u.mappings.pid] = r->u.mappings.time_ns;
		break;
	default: break;
	}
	return 0;
}

static void test_state(void)
{
	struct trec_flight_state st = { .mf = { .fd = -1 } };
	struct trec_memfile seg, seg2;
	struct tally seen = { 0 }, kept = { 0 };

	write_segment(&seg);
	CHECK("state: a segment folds in", !trec_flight_state_absorb(&st, &seg, 1000, count, &seen));
	CHECK("state: the sink saw the whole segment", seen.samples == 2 && seen.events == 3 &&
							    seen.files == 2 && seen.meta == 1);
	trec_flight_state_each(&st, count, &kept);
	CHECK("state: one META, each FILE once", kept.meta == 1 && kept.files == 1);
	CHECK("state: no SAMPLE, no PID_EVENT", kept.samples == 0 && kept.events == 0);
	CHECK("state: a pid's newest MAPPINGS only", kept.map_time[1] == 500);
	CHECK("state: a process gone before the cut is dropped, with its PYCODE",
	      kept.map_time[2] == 0 && kept.pycode == 0);
	CHECK("state: ... and its Perl, Ruby and PHP code; a live process's and an unknown "
	      "subtype's stay", seen.interp == 5 && kept.interp == 2 && kept.interp_unknown == 1);
	CHECK("state: a reused pid keeps the new process's MAPPINGS", kept.map_time[3] == 400);
	CHECK("state: a process gone after the cut stays", kept.map_time[4] == 200);
	CHECK("state: the newest KSYMS only", kept.ksyms == 1 && kept.ksyms_time == 2);

	/* pid 4's exit, remembered, applies once the cut passes it */
	trec_memfile_create(&seg2, "test-seg2");
	put_sample(seg2.w, 1, 800);
	trec_memfile_seal(&seg2);
	trec_memfile_map(&seg2);
	memset(&kept, 0, sizeof(kept));
	CHECK("state: a second segment folds in", !trec_flight_state_absorb(&st, &seg2, 6000, NULL, NULL));
	trec_flight_state_each(&st, count, &kept);
	CHECK("state: an exit seen earlier applies when the cut passes it",
	      kept.map_time[4] == 0 && kept.map_time[1] == 500 && kept.meta == 1);

	/* a switched file: the state's chunks, then the segment's */
	char path[] = "/tmp/trec-flight-XXXXXX";
	int fd = mkstemp(path);
	struct trec_header h;
	struct trec_writer *w;
	size_t n;
	int err, rc;

	trec_header_init_host(&h);
	w = trec_writer_open_fd(fd, &h, NULL);
	const uint8_t *p = trec_memfile_chunks(&st.mf, &n);
	rc = trec_writer_copy_chunks(w, p, n);
	p = trec_memfile_chunks(&seg, &n);
	rc |= trec_writer_copy_chunks(w, p, n);
	CHECK("copy: torn chunks are refused", trec_writer_copy_chunks(w, p, n - 1) == -EBADMSG);
	put_sample(w, 1, 900);
	rc |= trec_writer_close(w);
	CHECK("copy: state and segment chunks copied", rc == 0);

	struct trec_reader *r = trec_reader_open(path, NULL, &err, NULL, 0);
	struct trec_record rec;
	while (r && (rc = trec_reader_next(r, &rec)) > 0)
		;
	struct trec_reader_stats rs = { 0 };
	if (r)
		trec_reader_stats(r, &rs);
	CHECK("copy: the file reads to its end, sequence renumbered, nothing amiss",
	      r && rc == 0 && rs.seq_missing == 0 && rs.seq_duplicates == 0 &&
	      rs.seq_reordered == 0 && rs.samples == 3);
	if (r)
		trec_reader_close(r);
	unlink(path);

	trec_memfile_free(&seg);
	trec_memfile_free(&seg2);
	trec_flight_state_free(&st);
}

int main(void)
{
	test_state();
	return failures != 0;
}
