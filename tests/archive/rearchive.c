// SPDX-License-Identifier: MIT
/*
 * rearchive [--absolute] IN.tr OUT.tr LEVEL: copies a recording with its
 * embedded symbol archives rebuilt at LEVEL from the recorded files (which
 * must still be there; the vdso from its embedded image), noting the same
 * sampled addresses trecord notes. So two archive levels can be compared
 * on exactly the same samples.
 *
 * --absolute turns the leaf frame of every sample into the runtime pc that
 * the pid's latest mapping snapshot (so far in the file) gives it, as BPF
 * writes the leaf of a sample taken before trecord knew the process: the
 * case where which lines a sampled archive must keep depends on the
 * snapshots (the callers still name the files, as in such a recording).
 * stderr gets one line: how many user frames hold runtime pcs.
 * With REARCHIVE_SYMBOL_CACHE set, level sampled goes through the symbol
 * cache in $TREC_CACHE_DIR, as trecord's does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/archive/archive.h"
#include "record/archive/symbol_cache.h"
#include "trec_format.h"
#include "trec_types.h"
#include "symbolize_rule.h"
#include "format/containers/u64map.h"

struct file_path {
	char *path;
	int image_fd; /* the vdso's embedded image, else -1 */
	uint8_t build_id[64];
	uint32_t build_id_len;
};

static int lookup(void *ctx, uint64_t file_id, struct trec_archive_file *f, char *buf,
		  size_t buflen)
{
	const struct file_path *fp = trec_u64map_get(ctx, file_id);
	if (!fp || (fp->path[0] != '/' && fp->image_fd < 0))
		return -1;
	if (fp->image_fd >= 0)
		snprintf(buf, buflen, "/proc/self/fd/%d", fp->image_fd);
	else
		snprintf(buf, buflen, "%s", fp->path);
	f->path = buf;
	f->name = fp->path;
	f->build_id = fp->build_id_len ? fp->build_id : NULL;
	f->build_id_len = fp->build_id_len;
	return 0;
}

static int note_file(struct trec_u64map *files, const struct trec_file_info *fi)
{
	int err = 0;
	if (trec_u64map_get(files, fi->file_id))
		return 0;
	struct file_path *fp = calloc(1, sizeof(*fp));
	if (!fp || !(fp->path = strdup(fi->path ? fi->path : ""))) {
		free(fp);
		return -ENOMEM;
	}
	fp->image_fd = -1;
	fp->build_id_len = fi->build_id_len <= sizeof(fp->build_id) ? fi->build_id_len : 0;
	memcpy(fp->build_id, fi->build_id, fp->build_id_len);
	trec_u64map_put(files, fi->file_id, fp, &err);
	return err;
}

/* A BLOB keyed by a file id is that file's ELF image (the vdso's). */
static int note_image(struct trec_u64map *files, const struct trec_blob *b)
{
	struct file_path *fp = trec_u64map_get(files, b->file_id);
	if (!fp || fp->image_fd >= 0)
		return 0;
	fp->image_fd = memfd_create("rearchive-image", MFD_CLOEXEC);
	if (fp->image_fd < 0 || write(fp->image_fd, b->data, b->len) != (ssize_t)b->len)
		return -errno;
	return 0;
}

/* The latest snapshot of one pid, for --absolute. */
struct pid_maps {
	size_t n;
	struct trec_mapping m[];
};

static int note_snapshot(struct trec_u64map *pids, const struct trec_mapping_snapshot *s)
{
	int err = 0;
	struct pid_maps *pm = malloc(sizeof(*pm) + (s->num_mappings + 1) * sizeof(pm->m[0]));
	if (!pm)
		return -ENOMEM;
	pm->n = s->num_mappings;
	memcpy(pm->m, s->mappings, pm->n * sizeof(pm->m[0]));
	for (size_t i = 0; i < pm->n; i++) /* the strings belong to the reader */
		pm->m[i].path = NULL, pm->m[i].build_id = NULL;
	free(trec_u64map_put(pids, s->pid, pm, &err));
	if (err)
		free(pm);
	return err;
}

/* Frame f of a file as the runtime pc pm maps it to; 0 if pm does not. */
static int to_absolute(const struct pid_maps *pm, struct trec_rec_frame *f)
{
	if (!pm || !trec_frame_is_native(f->kind, f->flags) ||
	    trec_frame_is_absolute(f->kind, f->flags, f->file_id))
		return 0;
	for (size_t i = 0; i < pm->n; i++) {
		uint64_t pc = f->addr + pm->m[i].bias;
		if (pm->m[i].file_id == f->file_id && pc >= pm->m[i].start && pc < pm->m[i].end) {
			*f = (struct trec_rec_frame){ .addr = pc, .kind = TREC_FRAME_NATIVE,
						     .flags = TREC_FRAME_F_ABSOLUTE |
							      (f->flags & TREC_FRAME_F_RETURN_ADDRESS) };
			return 1;
		}
	}
	return 0;
}

static void free_all(struct trec_u64map *m)
{
	uint64_t key;
	void *val;
	for (size_t it = 0; trec_u64map_next(m, &it, &key, &val);)
		free(val);
	trec_u64map_free(m);
}

static int copy_record(struct trec_writer *w, const struct trec_record *r)
{
	switch (r->type) {
	case TREC_REC_META: return trec_write_meta(w, &r->u.meta);
	case TREC_REC_SAMPLE: return trec_write_sample(w, &r->u.sample);
	case TREC_REC_MAPPINGS: return trec_write_mappings(w, &r->u.mappings);
	case TREC_REC_PID_EVENT: return trec_write_pid_event(w, &r->u.pid_event);
	case TREC_REC_FILE: return trec_write_file(w, &r->u.file);
	case TREC_REC_KSYMS: return trec_write_ksyms(w, &r->u.ksyms);
	case TREC_REC_METRICS: return trec_write_metrics(w, &r->u.metrics);
	case TREC_REC_SUMMARY: return trec_write_summary(w, &r->u.summary);
	case TREC_REC_SYMTAB: return 0; /* rebuilt */
	case TREC_REC_JITSYMS: return trec_write_jitsyms(w, &r->u.jitsyms);
	case TREC_REC_PYCODE:
	case TREC_REC_INTERP_CODE:
	case TREC_REC_BLOB: return trec_write_blob(w, r->type, &r->u.blob);
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	int absolute = argc > 1 && !strcmp(argv[1], "--absolute");
	argc -= absolute;
	argv += absolute;
	int level = argc == 4 ? trec_archive_level_parse(argv[3]) : -1;
	/* Level sampled through the symbol cache ($TREC_CACHE_DIR), as trecord. */
	trec_symbol_cache_use(getenv("REARCHIVE_SYMBOL_CACHE") != NULL);
	if (level < 0) {
		fprintf(stderr, "usage: rearchive [--absolute] IN.tr OUT.tr none|symbols|sampled|full\n");
		return 2;
	}
	char msg[256] = "";
	int rerr = 0;
	struct trec_reader *r = trec_reader_open(argv[1], NULL, &rerr, msg, sizeof(msg));
	if (!r) {
		fprintf(stderr, "rearchive: %s: %s\n", argv[1], msg[0] ? msg : strerror(-rerr));
		return 1;
	}
	struct trec_writer *w = trec_writer_open(argv[2], trec_reader_header(r), NULL, 1);
	struct trec_touched *t = trec_touched_new(level == TREC_ARCHIVE_SAMPLED);
	struct trec_u64map files = { 0 }, pids = { 0 };
	struct trec_rec_frame *frames = NULL;
	uint64_t nuser = 0, nabs = 0, nrewritten = 0;
	struct trec_record rec;
	struct trec_archive_totals tot;
	int rc, err = !w || !t ? -ENOMEM : 0, archived = 0;
	while (!err && (rc = trec_reader_next(r, &rec)) > 0) {
		if (rec.type == TREC_REC_FILE)
			err = note_file(&files, &rec.u.file);
		if (rec.type == TREC_REC_BLOB)
			err = note_image(&files, &rec.u.blob);
		if (rec.type == TREC_REC_MAPPINGS) {
			err = trec_touched_mappings(t, &rec.u.mappings);
			if (!err && absolute)
				err = note_snapshot(&pids, &rec.u.mappings);
		}
		if (rec.type == TREC_REC_SAMPLE && absolute) {
			struct trec_sample *smp = &rec.u.sample;
			const struct pid_maps *pm = trec_u64map_get(&pids, smp->pid);
			free(frames);
			frames = malloc((smp->num_user_frames + 1) * sizeof(*frames));
			if (!frames) {
				err = -ENOMEM;
				break;
			}
			memcpy(frames, smp->user_frames, smp->num_user_frames * sizeof(*frames));
			if (smp->num_user_frames)
				nrewritten += to_absolute(pm, &frames[0]);
			smp->user_frames = frames;
		}
		if (rec.type == TREC_REC_SAMPLE)
			for (uint32_t i = 0; i < rec.u.sample.num_user_frames && !err; i++) {
				const struct trec_rec_frame *f = &rec.u.sample.user_frames[i];
				nuser++;
				nabs += trec_frame_is_absolute(f->kind, f->flags, f->file_id);
				err = trec_touched_frame(t, rec.u.sample.pid, f);
			}
		/* trecord writes the archives just before its SUMMARY */
		if (!err && rec.type == TREC_REC_SUMMARY && level != TREC_ARCHIVE_NONE) {
			err = trec_archive_write_touched(w, t, level, lookup, &files, &tot);
			archived = 1;
		}
		if (!err)
			err = copy_record(w, &rec);
	}
	if (!err && rc < 0) {
		fprintf(stderr, "rearchive: %s: %s\n", argv[1], trec_reader_error(r));
		err = rc;
	}
	if (!err && !archived)
		fprintf(stderr, "rearchive: %s has no SUMMARY: no archives written\n", argv[1]);
	uint64_t key;
	void *val;
	for (size_t it = 0; trec_u64map_next(&files, &it, &key, &val);) {
		struct file_path *fp = val;
		if (fp->image_fd >= 0)
			close(fp->image_fd);
		free(fp->path);
		free(fp);
	}
	trec_u64map_free(&files);
	free_all(&pids);
	free(frames);
	trec_touched_free(t);
	fprintf(stderr, "rearchive: %" PRIu64 " of %" PRIu64 " user frames hold runtime pcs (%" PRIu64
		" made so)\n", nabs, nuser, nrewritten);
	trec_reader_close(r);
	int cerr = w ? trec_writer_close(w) : 0;
	if (err || cerr)
		fprintf(stderr, "rearchive: %s\n", strerror(-(err ? err : cerr)));
	return err || cerr ? 1 : 0;
}
