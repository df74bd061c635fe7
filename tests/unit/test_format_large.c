// SPDX-License-Identifier: MIT
/*
 * Millions of samples: written (in a child process, so the parent's peak
 * RSS is not the writer's), then read back and checked one by one, while
 * the reader's peak RSS growth must stay bounded (it holds one chunk at a
 * time). Prints bytes/sample and read throughput.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "format_fixture.h"

#define NSAMPLES 2000000u
#define NSTACKS 2000u
#define MAX_DEPTH 64u

struct stack {
	uint32_t nk, nu;
	struct trec_rec_frame k[8], u[MAX_DEPTH];
};

static struct stack *stacks;

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/*
 * A pool of stacks shaped like a real program's: random walks down a call
 * graph of 400 functions from main, so stacks share their outer frames and
 * return addresses repeat. 16-64 native frames; a quarter with kernel frames.
 */
static void make_stacks(void)
{
	enum { NFUNCS = 400, FANOUT = 4 };
	static uint32_t callee[NFUNCS][FANOUT];
	uint64_t seed = 7;

	for (unsigned f = 0; f < NFUNCS; f++)
		for (unsigned e = 0; e < FANOUT; e++)
			callee[f][e] = (uint32_t)(rnd(&seed) % NFUNCS);
	stacks = calloc(NSTACKS, sizeof(*stacks));
	for (unsigned i = 0; i < NSTACKS; i++) {
		struct stack *s = &stacks[i];
		uint32_t f = 0, depth = 16 + (uint32_t)(rnd(&seed) % (MAX_DEPTH - 15));

		s->nu = depth;
		/* Outermost (main) at the end: leaf first, like perf. */
		for (unsigned j = depth; j-- > 0;) {
			unsigned e = (unsigned)(rnd(&seed) % FANOUT);
			uint64_t pc = 0x401000 + 0x400ULL * f + (j ? 0x20 * e + 5 : rnd(&seed) % 0x400);

			s->u[j] = (struct trec_rec_frame){ 0x5a5a000000000000ULL + f / 100, pc, 3,
							   j ? 2 : 0 };
			f = callee[f][e];
		}
		s->nk = rnd(&seed) % 4 == 0 ? 8 : 0;
		for (unsigned j = 0; j < s->nk; j++)
			s->k[j] = (struct trec_rec_frame){ 0, 0xffffffff81000000ULL + 0x1000 * j +
							   (j ? 0x15 : rnd(&seed) % 0x100), 4, j ? 2 : 0 };
	}
}

/* The i-th sample of the stream; skewed stack choice like a real profile. */
static void sample_of(unsigned i, uint64_t *seed, struct trec_sample *s, unsigned *stack)
{
	uint64_t r = rnd(seed);

	*stack = (unsigned)(((r % NSTACKS) * (r % NSTACKS)) / NSTACKS);
	memset(s, 0, sizeof(*s));
	s->time_ns = 1000000000ULL + 10101ULL * i - (r & 0xff);
	s->pid = 1000 + (uint32_t)(r % 3);
	s->tid = s->pid + (uint32_t)((r >> 8) % 4);
	s->cpu = (uint32_t)((r >> 12) & 1);
	s->weight = 1;
	strcpy(s->comm, "worker");
	s->num_kernel_frames = stacks[*stack].nk;
	s->kernel_frames = stacks[*stack].k;
	s->num_user_frames = stacks[*stack].nu;
	s->user_frames = stacks[*stack].u;
	s->flags = s->num_kernel_frames ? 1 : 0;
}

static int write_file(const char *path)
{
	struct trec_header h;
	struct trec_writer *w;
	struct trec_sample s;
	uint64_t seed = 99;
	unsigned st;
	int err = 0;

	trec_header_init_host(&h);
	w = trec_writer_open(path, &h, NULL, 1);
	if (!w)
		return -errno;
	for (unsigned i = 0; i < NSAMPLES && !err; i++) {
		sample_of(i, &seed, &s, &st);
		err = trec_write_sample(w, &s);
	}
	int cerr = trec_writer_close(w);
	return err ? err : cerr;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	char path[] = "/tmp/trec-large.XXXXXX";
	int fd = mkstemp(path), status = 0;
	pid_t pid;

	if (fd < 0)
		return 1;
	close(fd);
	make_stacks();
	double t0 = now();
	pid = fork();
	if (pid == 0)
		_exit(write_file(path) ? 1 : 0);
	waitpid(pid, &status, 0);
	double t1 = now();
	if (!fx_check(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "write 2M samples"))
		goto out;

	long rss0 = maxrss_kb();
	char msg[256];
	int err;
	struct trec_reader *r = trec_reader_open(path, NULL, &err, msg, sizeof(msg));
	struct trec_record rec;
	uint64_t seed = 99;
	unsigned n = 0, bad = 0, st;
	int rc = -1;

	while (r && (rc = trec_reader_next(r, &rec)) == 1) {
		struct trec_sample want;
		const struct trec_sample *got = &rec.u.sample;

		sample_of(n, &seed, &want, &st);
		if (rec.type != TREC_REC_SAMPLE || got->time_ns != want.time_ns ||
		    got->pid != want.pid || got->tid != want.tid || got->cpu != want.cpu ||
		    got->num_user_frames != want.num_user_frames ||
		    got->num_kernel_frames != want.num_kernel_frames ||
		    !fx_frames_eq(got->user_frames, want.user_frames, want.num_user_frames) ||
		    !fx_frames_eq(got->kernel_frames, want.kernel_frames, want.num_kernel_frames) ||
		    strcmp(got->comm, want.comm))
			bad++;
		n++;
	}
	double t2 = now();
	long rss1 = maxrss_kb();
	struct trec_reader_stats stats;
	if (r)
		trec_reader_stats(r, &stats);
	trec_reader_close(r);

	struct stat sb;
	stat(path, &sb);
	printf("large: %u samples, %lld bytes (%.2f bytes/sample, %llu chunks), "
	       "write %.2fs, read %.2fs (%.0f records/s), peak RSS +%ld KiB while reading\n",
	       n, (long long)sb.st_size, (double)sb.st_size / NSAMPLES,
	       r ? (unsigned long long)stats.chunks : 0ULL, t1 - t0, t2 - t1,
	       n / (t2 - t1), rss1 - rss0);
	fx_check(rc == 0 && n == NSAMPLES && bad == 0, "2M samples read back, every field equal");
	/* The file holds ~35 MiB of chunk bodies: a reader keeping them would fail. */
	fx_check(rss1 - rss0 < 16 * 1024, "reading grows peak RSS by < 16 MiB");
out:
	unlink(path);
	free(stacks);
	return fx_failures ? 1 : 0;
}
