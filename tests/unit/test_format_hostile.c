// SPDX-License-Identifier: MIT
/*
 * The reader against damaged input: truncation at every byte offset and
 * single bit flips everywhere (with and without force) of a multi-chunk
 * file. Hand-crafted hostile files are in test_format_crafted.c.
 */
#include "format_hostile_read.h"
/* ---- the multi-chunk fixture file and its chunk layout ------------------ */

static uint8_t *file;
static size_t file_len;
static size_t chunk_off[256], nchunks; /* chunk_off[nchunks] = file_len */
static unsigned rec_chunk[64];         /* chunk index of fx_recs[i] */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int setup(void)
{
	struct trec_writer_opts o = { .chunk_bytes = 200 };
	struct trec_reader *r;
	struct trec_record rec;
	unsigned i = 0;
	size_t off;

	fx_init();
	file = fx_write_mem(&o, &file_len);
	if (!file)
		return 0;
	for (off = 256, nchunks = 0; off + 32 <= file_len && nchunks < 255; nchunks++) {
		chunk_off[nchunks] = off;
		off += 32 + le32(file + off + 8);
	}
	chunk_off[nchunks] = file_len;
	r = trec_reader_open_mem(file, file_len, NULL, NULL, NULL, 0);
	while (r && trec_reader_next(r, &rec) == 1 && i < fx_nrecs) {
		unsigned c = 0;
		while (c < nchunks && chunk_off[c] != rec.file_offset)
			c++;
		rec_chunk[i++] = c;
	}
	trec_reader_close(r);
	return off == file_len && nchunks >= 4 && i == fx_nrecs;
}

static void test_truncation(void)
{
	unsigned expect[64], bad = 0, crashes_avoided = 0;
	struct outcome o;

	for (unsigned i = 0; i < fx_nrecs; i++)
		expect[i] = i;
	for (size_t len = 0; len < file_len; len++) {
		read_all(file, len, 0, expect, fx_nrecs, &o);
		crashes_avoided++;
		if (len < 256) {
			if (!o.open_err || !o.msg[0]) {
				fprintf(stderr, "truncated to %zu: header accepted\n", len);
				bad++;
			}
			continue;
		}
		/* Every record of a chunk that ends at or before len, nothing else. */
		unsigned want = 0, c = 0;
		while (want < fx_nrecs && chunk_off[rec_chunk[want] + 1] <= len)
			want++;
		while (chunk_off[c] < len)
			c++;
		int boundary = chunk_off[c] == len;
		if (o.open_err || o.rc != 0 || o.nrecs != want || o.matches != want ||
		    o.st.truncated == boundary || (o.w.n == 1) == boundary ||
		    (!boundary && !strstr(o.w.last, "file truncated at offset"))) {
			fprintf(stderr, "truncated to %zu: rc %d recs %u/%u warn %d '%s' %s\n", len,
				o.rc, o.nrecs, want, o.w.n, o.w.last, o.msg);
			bad++;
		}
	}
	printf("truncation: %zu offsets of a %zu-chunk file\n", file_len, nchunks);
	fx_check(crashes_avoided == file_len && bad == 0,
		 "truncation at every byte offset: complete chunks returned, then warning + EOF");

	/* The offset in the warning is the incomplete chunk's. */
	read_all(file, chunk_off[2] + 40, 0, NULL, 0, &o);
	char want_msg[80];
	snprintf(want_msg, sizeof(want_msg), "file truncated at offset %zu: last chunk incomplete",
		 chunk_off[2]);
	fx_check(!strcmp(o.w.last, want_msg), "truncation warning names the chunk offset");
}

static void test_bit_flips(void)
{
	uint8_t *copy = malloc(file_len);
	unsigned expect[64], undetected = 0, force_bad = 0, garbage = 0, flips = 0;
	uint64_t seed = 42;
	struct outcome o;

	if (!copy)
		return;
	for (size_t pos = 0; pos < file_len; pos++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned bit = (unsigned)(seed >> 61);
		unsigned dmg = 0, nexp = 0;

		memcpy(copy, file, file_len);
		copy[pos] ^= (uint8_t)(1u << bit);
		flips++;
		while (dmg < nchunks && chunk_off[dmg + 1] <= pos)
			dmg++;
		for (unsigned i = 0; i < fx_nrecs; i++)
			expect[i] = i;
		/* Without force: detected, and nothing wrong was returned first. */
		read_all(copy, file_len, 0, expect, fx_nrecs, &o);
		if (!o.open_err && o.rc == 0) {
			fprintf(stderr, "flip at %zu bit %u not detected\n", pos, bit);
			undetected++;
		}
		if (o.matches != o.nrecs)
			garbage++;
		if (!o.open_err && o.rc < 0 && !strstr(o.msg, "corrupt chunk at offset"))
			garbage++;
		if (pos < 256)
			continue;
		/* With force: every other chunk's records come back, in order. */
		for (unsigned i = 0; i < fx_nrecs; i++)
			if (rec_chunk[i] != dmg)
				expect[nexp++] = i;
		read_all(copy, file_len, TREC_READ_FORCE, expect, nexp, &o);
		if (o.open_err || o.rc != 0 || o.nrecs != nexp || o.matches != nexp ||
		    o.st.bad_chunks != 1 || o.w.skipped != 1) {
			fprintf(stderr, "force, flip at %zu (chunk %u): rc %d recs %u/%u bad %llu '%s'\n",
				pos, dmg, o.rc, o.nrecs, nexp, (unsigned long long)o.st.bad_chunks,
				o.w.last);
			force_bad++;
		}
	}
	printf("bit flips: %u positions\n", flips);
	fx_check(undetected == 0, "every single bit flip is detected (CRCs)");
	fx_check(garbage == 0, "no damaged record is returned; errors name the chunk offset");
	fx_check(force_bad == 0, "with force, one bad chunk is skipped and all later ones read");

	/* A zeroed stretch over two chunk boundaries: force resynchronizes. */
	memcpy(copy, file, file_len);
	memset(copy + chunk_off[1] + 10, 0, chunk_off[3] - chunk_off[1]);
	read_all(copy, file_len, TREC_READ_FORCE, NULL, 0, &o);
	unsigned want = 0;
	for (unsigned i = 0; i < fx_nrecs; i++)
		want += rec_chunk[i] == 0 || rec_chunk[i] > 3;
	fx_check(o.rc == 0 && o.nrecs == want && o.st.bad_chunks == 1,
		 "force resynchronizes after a zeroed region");
	free(copy);
}

int main(void)
{
	if (!fx_check(setup(), "multi-chunk fixture written"))
		return 1;
	test_truncation();
	test_bit_flips();
	free(file);
	return fx_failures ? 1 : 0;
}
