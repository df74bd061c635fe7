/* SPDX-License-Identifier: MIT */
/*
 * Shared by the reader's hostile-input tests: read a whole buffer and
 * note what the reader did (records, warnings, the error, its stats).
 */
#ifndef FORMAT_HOSTILE_READ_H
#define FORMAT_HOSTILE_READ_H

#include <errno.h>
#include <zlib.h>
#include <zstd.h>

#include "format_fixture.h"

/* Chunk-local record types (FORMAT.md §6.10, §6.11). */
#define SPEC_REC_STACK 32
#define SPEC_REC_THREAD 33

struct warns {
	int n;
	int skipped; /* "skipping corrupt chunk" warnings */
	char last[320];
};

static void on_warn(void *ctx, const char *msg)
{
	struct warns *w = ctx;

	w->n++;
	w->skipped += strstr(msg, "skipping corrupt chunk") != NULL;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* Result of reading a whole buffer. */
struct outcome {
	int open_err;          /* 0 if it opened */
	char msg[256];         /* open or read error */
	int rc;                /* last trec_reader_next result */
	unsigned nrecs;        /* records returned */
	unsigned matches;      /* leading records equal to the expected ones */
	struct warns w;
	struct trec_reader_stats st;
};

/*
 * Reads buf; expect[] (may be NULL) lists the fx_recs indices the records
 * should equal, in order.
 */
static void read_all(const uint8_t *buf, size_t len, unsigned flags, const unsigned *expect,
		     unsigned nexpect, struct outcome *o)
{
	struct trec_reader_opts ro = { .flags = flags, .warn = on_warn };
	struct trec_record rec;
	struct trec_reader *r;
	char why[200];
	int matching = 1;

	memset(o, 0, sizeof(*o));
	ro.warn_ctx = &o->w;
	r = trec_reader_open_mem(buf, len, &ro, &o->open_err, o->msg, sizeof(o->msg));
	if (!r)
		return;
	while ((o->rc = trec_reader_next(r, &rec)) == 1) {
		/* Touch every byte handed out, so ASan sees any bad pointer. */
		if (rec.type == TREC_REC_SAMPLE) {
			volatile uint64_t sum = 0;
			for (uint32_t i = 0; i < rec.u.sample.num_user_frames; i++)
				sum += rec.u.sample.user_frames[i].addr;
			for (uint32_t i = 0; i < rec.u.sample.num_kernel_frames; i++)
				sum += rec.u.sample.kernel_frames[i].addr;
		}
		if (expect && matching && o->nrecs < nexpect &&
		    fx_equal(&fx_recs[expect[o->nrecs]], &rec, why, sizeof(why)))
			o->matches++;
		else
			matching = 0;
		o->nrecs++;
	}
	if (o->rc < 0)
		snprintf(o->msg, sizeof(o->msg), "%s", trec_reader_error(r));
	trec_reader_stats(r, &o->st);
	trec_reader_close(r);
}


#endif /* FORMAT_HOSTILE_READ_H */
