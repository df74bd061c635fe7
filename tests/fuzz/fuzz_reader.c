// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the .tr reader. The first input byte picks a mode:
 *   even: the rest is a whole file, read as is (header, chunk framing,
 *         CRCs, zstd, resynchronization);
 *   odd:  the rest is an uncompressed chunk body; it is wrapped in a valid
 *         header and chunk (correct lengths, CRCs, zstd frame) so that
 *         mutations reach the record decoders instead of dying at the CRC;
 *         with bit 1 set too, several chunks with sequence numbers from
 *         the input (see wrap()).
 * Every input is read twice, without and with TREC_READ_FORCE, and every
 * field of every record is touched so the sanitizers see bad pointers.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "encode.h"
#include "format_internal.h"

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static uint64_t touch_str(const char *s)
{
	return strlen(s);
}

static uint64_t touch_bytes(const uint8_t *p, uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

static uint64_t touch_frames(const struct trec_rec_frame *f, uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += f[i].file_id + f[i].addr + f[i].kind + f[i].flags;
	return sum;
}

static uint64_t touch(const struct trec_record *r)
{
	uint64_t s = r->file_offset + (uint64_t)r->type;

	switch (r->type) {
	case TREC_REC_META:
		for (uint32_t i = 0; i < r->u.meta.num_entries; i++)
			s += touch_str(r->u.meta.entries[i].key) + touch_str(r->u.meta.entries[i].value);
		break;
	case TREC_REC_SAMPLE: {
		const struct trec_sample *x = &r->u.sample;

		s += x->time_ns + x->pid + x->tid + x->cpu + x->flags + x->weight;
		s += strnlen(x->comm, sizeof(x->comm)) + touch_str(x->comm);
		s += touch_frames(x->kernel_frames, x->num_kernel_frames);
		s += touch_frames(x->user_frames, x->num_user_frames);
		break;
	}
	case TREC_REC_MAPPINGS:
		s += r->u.mappings.time_ns + r->u.mappings.pid;
		for (uint32_t i = 0; i < r->u.mappings.num_mappings; i++) {
			const struct trec_mapping *m = &r->u.mappings.mappings[i];

			s += m->start + m->end + m->file_offset + m->file_id + m->bias + m->inode +
			     m->mtime_ns + m->dev_major + m->dev_minor + m->prot;
			s += touch_str(m->path) + touch_bytes(m->build_id, m->build_id_len);
		}
		break;
	case TREC_REC_PID_EVENT: {
		const struct trec_pid_event *e = &r->u.pid_event;

		s += e->time_ns + e->kind + e->pid + e->tid + e->parent_pid + (uint32_t)e->exit_code;
		s += touch_str(e->comm) + touch_str(e->filename);
		break;
	}
	case TREC_REC_FILE: {
		const struct trec_file_info *f = &r->u.file;

		s += f->file_id + f->size + f->inode + f->mtime_ns + f->dev_major + f->dev_minor;
		s += touch_str(f->path) + touch_bytes(f->build_id, f->build_id_len) +
		     touch_str(f->debuglink);
		break;
	}
	case TREC_REC_KSYMS:
		s += r->u.ksyms.time_ns;
		for (uint32_t i = 0; i < r->u.ksyms.num_syms; i++) {
			const struct trec_ksym *k = &r->u.ksyms.syms[i];

			s += k->addr + (uint8_t)k->type + touch_str(k->name) + touch_str(k->module);
		}
		break;
	case TREC_REC_METRICS:
		s += r->u.metrics.time_ns;
		for (uint32_t i = 0; i < r->u.metrics.num_values; i++)
			s += r->u.metrics.values[i].id + touch_str(r->u.metrics.values[i].name) +
			     r->u.metrics.values[i].value;
		break;
	case TREC_REC_SUMMARY:
		s += r->u.summary.start_ns + r->u.summary.end_ns + r->u.summary.samples +
		     r->u.summary.lost + (uint32_t)r->u.summary.exit_status + r->u.summary.flags;
		break;
	case TREC_REC_JITSYMS: {
		const struct trec_jitsyms *j = &r->u.jitsyms;

		s += j->time_ns + j->pid + j->source + j->flags + j->bad + touch_str(j->path);
		for (uint32_t i = 0; i < j->num_files; i++)
			s += touch_str(j->files[i]);
		for (uint32_t i = 0; i < j->num_entries; i++) {
			const struct trec_jit_entry *e = &j->entries[i];

			s += e->start + e->size + e->load_ns + e->end_ns + e->code_index;
			s += touch_str(e->name);
			for (uint32_t k = 0; k < e->num_lines; k++) /* rows are in bounds */
				s += j->lines[e->first_line + k].addr + j->lines[e->first_line + k].line +
				     touch_str(j->files[j->lines[e->first_line + k].file]);
		}
		break;
	}
	default:
		s += r->u.blob.file_id + r->u.blob.subtype + touch_bytes(r->u.blob.data, r->u.blob.len);
		break;
	}
	return s;
}

/* Where touched values go, so the compiler cannot drop the reads. */
static volatile uint64_t fuzz_sink;

static void read_all(const uint8_t *data, size_t size, unsigned flags)
{
	struct trec_reader_opts o = { .flags = flags, .warn = quiet };
	struct trec_reader_stats st;
	struct trec_record rec;
	uint64_t sink = 0;
	char msg[256];
	int err;
	struct trec_reader *r = trec_reader_open_mem(data, size, &o, &err, msg, sizeof(msg));

	if (!r) {
		if (err >= 0 || !msg[0])
			abort(); /* a failed open must say why */
		return;
	}
	sink += trec_reader_header(r)->page_size + strlen(trec_reader_header(r)->hostname);
	while (trec_reader_next(r, &rec) == 1)
		sink += touch(&rec);
	sink += strlen(trec_reader_error(r));
	trec_reader_stats(r, &st);
	fuzz_sink += sink + st.records + st.seq_missing + st.seq_duplicates + st.seq_reordered +
		     st.summaries;
	trec_reader_close(r);
}

/* Appends a records chunk around body, all checks satisfied, to f. */
static uint8_t *put_chunk(uint8_t *f, size_t *flen, const uint8_t *body, size_t len, uint32_t seq)
{
	size_t bound = ZSTD_compressBound(len);
	uint8_t *nf = realloc(f, *flen + TREC_CHUNK_HDR_SIZE + bound);
	struct trec_chunk_hdr ch = { .type = TREC_CHUNK_RECORDS, .seq = seq };
	uint32_t nrec = 0;

	if (!nf) {
		free(f);
		return NULL;
	}
	f = nf;
	uint8_t *z = f + *flen + TREC_CHUNK_HDR_SIZE;
	size_t zlen = ZSTD_compress(z, bound, body, len, 1);
	if (ZSTD_isError(zlen)) {
		free(f);
		return NULL;
	}
	/* Count records as framed, so the count check passes when framing is sane. */
	struct trec_cur c = { body, body + len, 0 };
	while (!c.bad && trec_cur_left(&c)) {
		trec_cur_varint(&c);
		uint64_t n = trec_cur_varint(&c);
		if (c.bad || n > trec_cur_left(&c))
			break;
		c.p += n;
		nrec++;
	}
	ch.clen = (uint32_t)zlen;
	ch.ulen = (uint32_t)len;
	ch.nrec = nrec;
	ch.body_crc = trec_crc32(z, zlen);
	trec_chunk_hdr_encode(&ch, f + *flen);
	*flen += TREC_CHUNK_HDR_SIZE + zlen;
	return f;
}

/* A valid header and chunks around the input: one chunk of all of it, or
 * (split) pieces "seq u8, len u8, len body bytes" each its own chunk, so
 * mutations reach the sequence checks (gaps, duplicates, reordering). */
static uint8_t *wrap(const uint8_t *data, size_t size, int split, size_t *out_len)
{
	struct trec_header h = { .page_size = 4096, .clock_id = 1 };
	uint8_t *f = malloc(TREC_HEADER_SIZE_V1);
	size_t flen = TREC_HEADER_SIZE_V1;

	if (!f)
		return NULL;
	trec_header_encode(&h, f);
	if (!split)
		f = put_chunk(f, &flen, data, size, 0);
	while (split && f && size >= 2) {
		size_t n = data[1] < size - 2 ? data[1] : size - 2;

		f = put_chunk(f, &flen, data + 2, n, data[0]);
		data += 2 + n;
		size -= 2 + n;
	}
	*out_len = flen;
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0) {
		read_all(data, 0, 0);
		return 0;
	}
	if (data[0] & 1) {
		size_t len;
		uint8_t *f = wrap(data + 1, size - 1, data[0] & 2, &len);

		if (f) {
			read_all(f, len, 0);
			read_all(f, len, TREC_READ_FORCE);
			free(f);
		}
		return 0;
	}
	/* Copy to an exact-size buffer so ASan catches any over-read. */
	uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	read_all(copy, size - 1, 0);
	read_all(copy, size - 1, TREC_READ_FORCE);
	free(copy);
	return 0;
}
