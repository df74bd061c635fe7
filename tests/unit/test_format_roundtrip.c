// SPDX-License-Identifier: MIT
/*
 * Round trip of every record type through libtrecformat: write, read back,
 * compare every field. Also: chunking at tiny chunk sizes, file creation
 * rules (0600, O_EXCL), write errors, input validation, and that identical
 * stacks are stored once per chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "format_fixture.h"

static int quiet_warnings;
static void count_warn(void *ctx, const char *msg)
{
	(*(int *)ctx)++;
	if (!quiet_warnings)
		fprintf(stderr, "warning: %s\n", msg);
}

/* Reads every record of r and compares it with fx_recs; 1 if all equal. */
static int compare_all(struct trec_reader *r, const char *name)
{
	struct trec_record rec;
	char why[200] = "";
	unsigned i = 0;
	int rc;

	while ((rc = trec_reader_next(r, &rec)) == 1) {
		if (i >= fx_nrecs) {
			snprintf(why, sizeof(why), "extra record %u", i);
			break;
		}
		if (!fx_equal(&fx_recs[i], &rec, why, sizeof(why)))
			break;
		i++;
	}
	if (rc < 0)
		snprintf(why, sizeof(why), "%s", trec_reader_error(r));
	if (i != fx_nrecs)
		fprintf(stderr, "%s: record %u of %u: %s\n", name, i, fx_nrecs, why);
	return rc == 0 && i == fx_nrecs;
}

static void test_mem_roundtrip(size_t chunk_bytes, const char *name)
{
	struct trec_writer_opts o = { .chunk_bytes = chunk_bytes };
	struct trec_reader_opts ro = { .warn = count_warn };
	struct trec_reader_stats st;
	struct trec_reader *r;
	int warns = 0, err;
	size_t len = 0;
	uint8_t *buf = fx_write_mem(&o, &len);
	char msg[256];

	ro.warn_ctx = &warns;
	if (!fx_check(buf != NULL, "writer writes the fixture"))
		return;
	r = trec_reader_open_mem(buf, len, &ro, &err, msg, sizeof(msg));
	if (fx_check(r != NULL, "reader opens what the writer wrote")) {
		fx_check(compare_all(r, name), name);
		trec_reader_stats(r, &st);
		fx_check(st.records == fx_nrecs && !st.truncated && !st.bad_chunks && !warns,
			 "stats: all records, no damage, no warnings");
		fx_check(st.records_by_type[TREC_REC_SAMPLE] == 10 &&
			 st.records_by_type[TREC_REC_PID_EVENT] == 5,
			 "stats count records by type");
		if (chunk_bytes && chunk_bytes < 200)
			fx_check(st.chunks > 10, "tiny chunk size gives many chunks");
		else
			fx_check(st.chunks == 1, "default chunk size gives one chunk");
		trec_reader_close(r);
	}
	free(buf);
}

static void test_file(const char *dir)
{
	char path[512], msg[256];
	struct trec_header h;
	struct trec_writer *w;
	struct trec_reader *r;
	struct stat sb;
	int err;

	snprintf(path, sizeof(path), "%s/rt.tr", dir);
	trec_header_init_host(&h);
	h.flags = 0xa5;
	strcpy(h.hostname, "host-\xc3\xa9");
	w = trec_writer_open(path, &h, NULL, 0);
	if (!fx_check(w != NULL, "writer creates a file"))
		return;
	fx_check(fx_write(w, 0, fx_nrecs) == 0, "write every record type");
	fx_check(trec_writer_bytes(w) == 256, "bytes: header only before the first chunk");
	fx_check(trec_writer_flush(w) == 0 && trec_writer_bytes(w) > 256, "flush writes a chunk");
	fx_check(trec_writer_close(w) == 0, "writer close");
	fx_check(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "file mode 0600");

	errno = 0;
	w = trec_writer_open(path, &h, NULL, 0);
	fx_check(!w && errno == EEXIST, "existing file refused without overwrite");
	w = trec_writer_open(path, &h, NULL, 1);
	fx_check(w && fx_write(w, 0, fx_nrecs) == 0 && trec_writer_close(w) == 0,
		 "overwrite replaces an existing file");

	r = trec_reader_open(path, NULL, &err, msg, sizeof(msg));
	if (!fx_check(r != NULL, "reader opens the file")) {
		fprintf(stderr, "%s\n", msg);
		return;
	}
	const struct trec_header *rh = trec_reader_header(r);
	fx_check(rh->version_major == TREC_FORMAT_VERSION_MAJOR &&
		 rh->version_minor == TREC_FORMAT_VERSION_MINOR && rh->flags == 0xa5 &&
		 rh->page_size == h.page_size && rh->clock_id == h.clock_id &&
		 rh->creation_time_ns == h.creation_time_ns &&
		 !strcmp(rh->kernel_release, h.kernel_release) &&
		 !strcmp(rh->machine, h.machine) && !strcmp(rh->hostname, h.hostname),
		 "header fields round trip");
	fx_check(compare_all(r, "file"), "file round trip (pread path)");
	trec_reader_close(r);

	r = trec_reader_open(dir, NULL, &err, msg, sizeof(msg));
	fx_check(!r && err < 0 && strstr(msg, "not a regular file"), "directory refused");
	snprintf(path, sizeof(path), "%s/missing.tr", dir);
	r = trec_reader_open(path, NULL, &err, msg, sizeof(msg));
	fx_check(!r && err == -ENOENT && strstr(msg, "missing.tr"), "missing file: ENOENT naming it");
}

static void test_write_errors(void)
{
	struct trec_header h;
	struct trec_writer *w;
	int p[2];
	char hdr[256];

	trec_header_init_host(&h);
	errno = 0;
	w = trec_writer_open("/dev/full", &h, NULL, 1);
	fx_check(!w && errno == ENOSPC, "ENOSPC writing the header is reported");

	/* A reader that goes away: every later call reports EPIPE. */
	if (pipe(p))
		return;
	signal(SIGPIPE, SIG_IGN);
	w = trec_writer_open_fd(p[1], &h, NULL);
	if (!w || read(p[0], hdr, sizeof(hdr)) != sizeof(hdr))
		return;
	close(p[0]);
	fx_check(fx_write(w, 0, fx_nrecs) == 0, "records are buffered");
	fx_check(trec_writer_flush(w) == -EPIPE, "failed chunk write is returned");
	fx_check(trec_write_summary(w, &fx_recs[fx_nrecs - 1].u.summary) == -EPIPE,
		 "write error is sticky");
	fx_check(trec_writer_close(w) == -EPIPE, "close returns the write error");
}

static void test_validation(void)
{
	struct trec_header h;
	struct trec_writer *w;
	int fd = open("/dev/null", O_WRONLY);
	struct trec_rec_frame frames[4097] = { { 0 } };
	struct trec_sample s = { .weight = 1, .num_user_frames = 4097, .user_frames = frames };
	struct trec_mapping m = { .path = "x", .build_id_len = 65, .build_id = (const uint8_t *)"" };
	struct trec_mapping_snapshot ms = { .num_mappings = 1, .mappings = &m };
	struct trec_mapping bad_range = { .start = 10, .end = 5 };
	struct trec_mapping_snapshot ms2 = { .num_mappings = 1, .mappings = &bad_range };
	struct trec_blob b = { .len = 1, .data = (const uint8_t *)"x" };

	trec_header_init_host(&h);
	w = trec_writer_open_fd(fd, &h, NULL);
	if (!w)
		return;
	fx_check(trec_write_sample(w, &s) == -EINVAL, "too many frames refused");
	fx_check(trec_write_mappings(w, &ms) == -EINVAL, "oversize build id refused");
	fx_check(trec_write_mappings(w, &ms2) == -EINVAL, "mapping end < start refused");
	fx_check(trec_write_blob(w, TREC_REC_SAMPLE, &b) == -EINVAL, "blob type checked");
	s.num_user_frames = 4096;
	fx_check(trec_write_sample(w, &s) == 0, "4096 frames accepted");

	size_t big = (64u << 20) + 1;
	char *str = malloc((1u << 20) + 2);
	uint8_t *data = calloc(1, big);
	if (str && data) {
		memset(str, 'x', (1u << 20) + 1);
		str[(1u << 20) + 1] = 0;
		struct trec_meta_entry me = { "k", str };
		struct trec_meta meta = { 1, &me };
		fx_check(trec_write_meta(w, &meta) == -EINVAL, "string over 1 MiB refused");
		str[1u << 20] = 0;
		fx_check(trec_write_meta(w, &meta) == 0, "string of 1 MiB accepted");
		struct trec_blob huge = { .len = (uint32_t)big, .data = data };
		fx_check(trec_write_blob(w, TREC_REC_BLOB, &huge) == -E2BIG, "record over 64 MiB: -E2BIG");
	}
	free(str);
	free(data);
	fx_check(trec_writer_close(w) == 0, "invalid input does not poison the writer");
}

/* Sum of the uncompressed body sizes, walking chunk headers as FORMAT.md says. */
/* The chunks' uncompressed bytes; *records: their records (FORMAT.md §3). */
static uint64_t sum_ulen_records(const uint8_t *buf, size_t len, unsigned *chunks,
				 uint64_t *records)
{
	uint64_t sum = 0;
	size_t off = buf[12] | buf[13] << 8 | buf[14] << 16 | (size_t)buf[15] << 24;

	*chunks = 0;
	while (off + 32 <= len) {
		const uint8_t *c = buf + off;
		uint32_t clen = c[8] | c[9] << 8 | c[10] << 16 | (uint32_t)c[11] << 24;
		uint32_t ulen = c[12] | c[13] << 8 | c[14] << 16 | (uint32_t)c[15] << 24;

		sum += ulen;
		*records += c[16] | c[17] << 8 | c[18] << 16 | (uint32_t)c[19] << 24;
		off += 32 + clen;
		(*chunks)++;
	}
	return sum;
}

static uint64_t sum_ulen(const uint8_t *buf, size_t len, unsigned *chunks)
{
	uint64_t records = 0;

	return sum_ulen_records(buf, len, chunks, &records);
}

/* n samples with a 100-frame user stack; distinct: every stack differs. */
static uint8_t *write_stack_stream(unsigned n, int distinct, size_t *len)
{
	static struct trec_rec_frame uf[100], kf[8];
	struct trec_header h;
	struct trec_writer *w;
	int fd = memfd_create("stacks", 0);
	uint64_t seed = 12345;
	uint8_t *buf = NULL;
	int err = 0;

	trec_header_init_host(&h);
	w = trec_writer_open_fd(dup(fd), &h, NULL);
	if (!w)
		goto out;
	for (unsigned i = 0; i < 8; i++)
		kf[i] = (struct trec_rec_frame){ 0, 0xffffffff81000000ULL + 0x1234 * i, 4, 2 };
	for (unsigned i = 0; i < n && !err; i++) {
		struct trec_sample s = { .time_ns = 1000000ULL * i, .pid = 100, .tid = 100 + i % 4,
			.cpu = i % 2, .weight = 1, .comm = "deep",
			.num_kernel_frames = 8, .kernel_frames = kf,
			.num_user_frames = 100, .user_frames = uf };
		for (unsigned j = 0; j < 100; j++) {
			uf[j].file_id = 0xabcdef0123456789ULL + (j / 40);
			uf[j].kind = 3;
			uf[j].flags = j ? 2 : 0;
			if (distinct) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				uf[j].addr = 0x400000 + (seed >> 40);
			} else {
				uf[j].addr = 0x400000 + 0x321 * j;
			}
		}
		err = trec_write_sample(w, &s);
	}
	if (trec_writer_close(w) || err)
		goto out;
	*len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(*len);
	if (buf && pread(fd, buf, *len, 0) != (ssize_t)*len) {
		free(buf);
		buf = NULL;
	}
out:
	close(fd);
	return buf;
}

static void test_dedup(void)
{
	size_t same_len = 0, diff_len = 0;
	unsigned same_chunks, diff_chunks;
	uint8_t *same = write_stack_stream(10000, 0, &same_len);
	uint8_t *diff = write_stack_stream(10000, 1, &diff_len);

	if (fx_check(same && diff, "write 10000 identical and 10000 distinct stacks")) {
		uint64_t su = sum_ulen(same, same_len, &same_chunks);
		uint64_t du = sum_ulen(diff, diff_len, &diff_chunks);

		printf("dedup: identical %zu bytes (%.1f B/sample, %llu uncompressed), "
		       "distinct %zu bytes (%llu uncompressed)\n",
		       same_len, (same_len - 256) / 10000.0, (unsigned long long)su, diff_len,
		       (unsigned long long)du);
		/* Stored once per chunk: a sample costs a SAMPLE record, ~10 bytes. */
		fx_check(su < 10000 * 16 && same_chunks == 1,
			 "identical stacks stored once: < 16 uncompressed bytes per sample");
		fx_check(du > 10000 * 100 * 4, "distinct stacks are all stored");
		fx_check(same_len * 20 < diff_len, "identical-stack file is >20x smaller");

		struct trec_reader *r = trec_reader_open_mem(same, same_len, NULL, NULL, NULL, 0);
		struct trec_record rec;
		unsigned n = 0, ok = 1;
		while (r && trec_reader_next(r, &rec) == 1) {
			const struct trec_sample *s = &rec.u.sample;
			ok &= s->num_user_frames == 100 && s->user_frames[99].addr == 0x400000 + 0x321 * 99 &&
			      s->tid == 100 + n % 4 && s->time_ns == 1000000ULL * n;
			n++;
		}
		fx_check(r && ok && n == 10000, "deduplicated samples read back intact");
		trec_reader_close(r);
	}
	free(same);
	free(diff);
}

/* The thread of a sample of test_threads: 40 tids (many share a slot of
 * the writer's thread memo), tid 7 with two names in turn (also back to
 * back). */
static void thread_of(unsigned i, uint32_t *pid, uint32_t *tid, const char **comm)
{
	/* Runs of two, tid 7 under its two names in turn, now and then. */
	unsigned k = i % 50 < 2 ? 40 : (i * 7 + i / 13) % 41;

	*tid = k == 40 ? 7 : 100 + 16 * (k % 5) + k / 5;
	*pid = *tid / 4;
	*comm = k == 40 ? (i & 1 ? "seven-odd" : "seven-even") : (k & 1 ? "odd" : "even");
}

/* Samples of many threads in turn, across many small chunks: each comes
 * back with its own pid, tid and comm, and each chunk names a thread once. */
static void test_threads(void)
{
	struct trec_writer_opts wo = { .chunk_bytes = 2048 };
	static struct trec_rec_frame uf[3] = { { 1, 0x1000, 3, 0 }, { 1, 0x2000, 3, 2 } };
	struct trec_header h;
	struct trec_writer *w;
	struct trec_reader *r = NULL;
	struct trec_record rec;
	int fd = memfd_create("threads", 0), err = 0;
	unsigned n = 0, ok = 1, chunks = 0;
	uint64_t records = 0, tables;
	size_t len;
	uint8_t *buf = NULL;

	trec_header_init_host(&h);
	w = trec_writer_open_fd(dup(fd), &h, &wo);
	for (unsigned i = 0; w && i < 3000 && !err; i++) {
		struct trec_sample s = { .time_ns = 1000ULL * i, .cpu = i % 2, .weight = 1,
					 .num_user_frames = 2, .user_frames = uf };
		const char *comm;

		thread_of(i, &s.pid, &s.tid, &comm);
		snprintf(s.comm, sizeof(s.comm), "%s", comm);
		err = trec_write_sample(w, &s);
	}
	if (!fx_check(w && !err && !trec_writer_close(w), "3000 samples of 41 threads written")) {
		close(fd);
		return;
	}
	len = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(len);
	if (buf && pread(fd, buf, len, 0) == (ssize_t)len)
		r = trec_reader_open_mem(buf, len, NULL, NULL, NULL, 0);
	while (r && trec_reader_next(r, &rec) == 1) {
		uint32_t pid, tid;
		const char *comm;

		if (rec.type != TREC_REC_SAMPLE)
			continue;
		thread_of(n, &pid, &tid, &comm);
		ok &= rec.u.sample.pid == pid && rec.u.sample.tid == tid &&
		      !strcmp(rec.u.sample.comm, comm);
		n++;
	}
	fx_check(r && ok && n == 3000, "each sample reads back with its own pid, tid and comm");
	if (buf)
		sum_ulen_records(buf, len, &chunks, &records);
	/* Besides the samples: per chunk, at most 42 threads (tid 7 under
	 * two names) and one stack; then META, SUMMARY. */
	tables = records - 3000;
	printf("threads: %llu table entries and others over %u chunks\n",
	       (unsigned long long)tables, chunks);
	fx_check(chunks > 10 && records > 3000 && tables <= 43ull * chunks + 4,
		 "a chunk names each thread once");
	trec_reader_close(r);
	free(buf);
	close(fd);
}

/* A kernel symbol snapshot much larger than a chunk stays one record. */
static void test_big_record(void)
{
	enum { N = 150000 };
	struct trec_ksym *syms = calloc(N, sizeof(*syms));
	char (*names)[24] = calloc(N, sizeof(*names));
	struct trec_ksyms k = { .time_ns = 9, .num_syms = N, .syms = syms };
	struct trec_writer_opts o = { .chunk_bytes = 4096 };
	struct trec_header h;
	struct trec_record rec;
	int fd = memfd_create("ksyms", 0), ok = 0;

	trec_header_init_host(&h);
	for (unsigned i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "sym_%u", i);
		syms[i] = (struct trec_ksym){ 0xffffffff81000000ULL + 16 * i, 'T', names[i],
					      i % 3 ? "" : "mod" };
	}
	struct trec_writer *w = trec_writer_open_fd(dup(fd), &h, &o);
	if (w && trec_write_ksyms(w, &k) == 0 && trec_write_summary(w, &fx_recs[fx_nrecs - 1].u.summary) == 0 &&
	    trec_writer_close(w) == 0) {
		size_t len = (size_t)lseek(fd, 0, SEEK_END);
		uint8_t *buf = malloc(len);
		if (buf && pread(fd, buf, len, 0) == (ssize_t)len) {
			struct trec_reader *r = trec_reader_open_mem(buf, len, NULL, NULL, NULL, 0);
			if (r && trec_reader_next(r, &rec) == 1 && rec.type == TREC_REC_KSYMS &&
			    rec.u.ksyms.num_syms == N) {
				ok = 1;
				for (unsigned i = 0; i < N && ok; i++)
					ok = rec.u.ksyms.syms[i].addr == syms[i].addr &&
					     !strcmp(rec.u.ksyms.syms[i].name, names[i]) &&
					     !strcmp(rec.u.ksyms.syms[i].module, syms[i].module);
				ok = ok && trec_reader_next(r, &rec) == 1 && rec.type == TREC_REC_SUMMARY &&
				     trec_reader_next(r, &rec) == 0;
			}
			trec_reader_close(r);
		}
		free(buf);
	}
	fx_check(ok, "record larger than chunk_bytes (150000 ksyms) round trips");
	close(fd);
	free(syms);
	free(names);
}

int main(void)
{
	char dir[] = "/tmp/trec-rt.XXXXXX";

	quiet_warnings = 0;
	fx_init();
	test_mem_roundtrip(0, "every record type round trips (default chunk)");
	test_mem_roundtrip(64, "every record type round trips (64-byte chunks)");
	test_mem_roundtrip(1, "every record type round trips (1-byte chunks)");
	if (mkdtemp(dir)) {
		test_file(dir);
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	test_write_errors();
	test_validation();
	test_dedup();
	test_threads();
	test_big_record();
	return fx_failures ? 1 : 0;
}
