/* Multi-threaded CPU-bound benchmark workload without frame pointers: each
 * thread runs a fixed amount of work through a few call chains (hashing,
 * a libc memcpy/memcmp loop, a recursive tree walk), so profilers are
 * compared on the same work and any slowdown shows in elapsed time.
 * usage: bench_threads [units] [threads]   (defaults 10, 2) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct node {
	struct node *left, *right;
	uint64_t key;
};

struct job {
	long units;
	uint64_t result;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

__attribute__((noinline)) static uint64_t hash_block(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = mix(h, p[i]);
	return h;
}

__attribute__((noinline)) static uint64_t copy_compare(uint8_t *a, uint8_t *b, size_t n)
{
	uint64_t acc = 0;
	for (int i = 0; i < 64; i++) {
		memcpy(b, a, n);
		b[i % n] ^= 1;
		acc += (uint64_t)memcmp(a, b, n);
		memmove(a + 1, a, n - 1);
	}
	return acc;
}

static struct node *tree_insert(struct node *t, struct node *n)
{
	if (!t)
		return n;
	if (n->key < t->key)
		t->left = tree_insert(t->left, n);
	else
		t->right = tree_insert(t->right, n);
	return t;
}

__attribute__((noinline)) static uint64_t tree_sum(const struct node *t, int depth)
{
	if (!t)
		return (uint64_t)depth;
	return mix(tree_sum(t->left, depth + 1), tree_sum(t->right, depth + 1) + t->key);
}

__attribute__((noinline)) static uint64_t tree_work(uint64_t seed)
{
	enum { N = 2048 };
	static __thread struct node nodes[N];
	struct node *root = NULL;
	uint64_t x = seed | 1, sum = 0;

	for (int i = 0; i < N; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		nodes[i] = (struct node){ .key = x };
		root = tree_insert(root, &nodes[i]);
	}
	for (int i = 0; i < 8; i++)
		sum += tree_sum(root, 0);
	return sum;
}

__attribute__((noinline)) static void *worker_main(void *arg)
{
	struct job *job = arg;
	uint8_t a[4096], b[4096];
	uint64_t r = 0;

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7);
	for (long u = 0; u < job->units; u++) {
		r += hash_block(a, sizeof(a));
		r += copy_compare(a, b, sizeof(a));
		r += tree_work(r + (uint64_t)u);
	}
	job->result = r;
	return NULL;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 10;
	int nthreads = argc > 2 ? atoi(argv[2]) : 2;
	unsigned long long start = now_ns();
	pthread_t *tids;
	struct job *jobs;
	uint64_t total = 0;

	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "bench_threads: threads must be 1..256\n");
		return 2;
	}
	tids = calloc(nthreads, sizeof(*tids));
	jobs = calloc(nthreads, sizeof(*jobs));
	if (!tids || !jobs)
		return 1;
	for (int i = 0; i < nthreads; i++) {
		jobs[i].units = units;
		if (pthread_create(&tids[i], NULL, worker_main, &jobs[i])) {
			fprintf(stderr, "bench_threads: pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		total += jobs[i].result;
	}
	fprintf(stderr, "elapsed_ns=%llu\n", now_ns() - start);
	printf("%lu\n", (unsigned long)(total & 1));
	free(tids);
	free(jobs);
	return 0;
}
