// SPDX-License-Identifier: MIT
/*
 * A tiny JIT: copies a leaf loop into anonymous executable memory and spins
 * in it, naming it the way runtimes do, for the JIT symbol tests.
 *
 *   jitloop SECS perfmap          /tmp/perf-PID.map written first (V8, CPython)
 *   jitloop SECS perfmap-at-exit  written when done (HotSpot's DumpPerfMapAtExit)
 *   jitloop SECS jitdump [DIR]    DIR/jit-PID.dump (default .), mmapped as perf
 *                                 wants, with line rows
 *   jitloop SECS phases [DIR]     jitdump: SECS in "jit_phase1", then SECS in
 *                                 "jit_phase2", loaded later over the same range
 *   jitloop SECS jitdump-late [DIR]  jitdump, opened and mapped only after
 *                                 LATE_SECS in the unnamed code (a profiler's
 *                                 sync of the maps sees the code, not the dump)
 *   jitloop SECS perfmap-late     the same with /tmp/perf-PID.map
 *
 * Prints "pid N" first. The leaf needs no unwinding to be named.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* loop: sub $1,%rdi; jnz loop; ret */
static const uint8_t loop_code[] = { 0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0xc3 };
#define EM_HOST 62
#elif defined(__aarch64__)
/* loop: subs x0,x0,#1; b.ne loop; ret */
static const uint8_t loop_code[] = { 0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54,
				     0xc0, 0x03, 0x5f, 0xd6 };
#define EM_HOST 183
#else
#error "jitloop knows x86-64 and arm64 code only"
#endif

#define CODE_SIZE 0x80 /* what the names cover: both loop copies of "phases" */
#define LATE_SECS 0.5  /* the *-late modes' time in their code before its file */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* SECS of CPU time, not of the clock: on a busy machine each phase still
 * gets its share of cpu-clock samples. */
static void spin(uint64_t (*fn)(uint64_t), double secs)
{
	uint64_t end = cpu_ns() + (uint64_t)(secs * 1e9);

	while (cpu_ns() < end)
		fn(200000);
}

static uint64_t (*place(uint8_t *page, size_t off))(uint64_t)
{
	if (mprotect(page, 4096, PROT_READ | PROT_WRITE))
		exit(1);
	memcpy(page + off, loop_code, sizeof(loop_code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC))
		exit(1);
	__builtin___clear_cache((char *)page, (char *)page + 4096);
	return (uint64_t (*)(uint64_t))(void *)(page + off);
}

static void write_perfmap(const uint8_t *code)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		exit(1);
	/* a stale line first: the last line covering an address wins */
	fprintf(f, "%lx %x stale_entry\n", (unsigned long)(uintptr_t)code, CODE_SIZE);
	fprintf(f, "%lx %x jit_hot_loop\n", (unsigned long)(uintptr_t)code, CODE_SIZE);
	fprintf(f, "%lx 40 never_sampled\n", (unsigned long)(uintptr_t)code + 0x800);
	fclose(f);
}

/* ---- jitdump ----------------------------------------------------------- */

static int dump_fd = -1;
static uint64_t code_index;

static void put(const void *p, size_t n)
{
	if (write(dump_fd, p, n) != (ssize_t)n)
		exit(1);
}

static void prefix(uint32_t id, uint32_t size)
{
	uint64_t ts = now_ns();

	put(&id, 4);
	put(&size, 4);
	put(&ts, 8);
}

static void open_dump(const char *dir)
{
	char path[4096];
	uint32_t h32[6] = { 0x4A695444, 1, 40, EM_HOST, 0, (uint32_t)getpid() };
	uint64_t h64[2] = { now_ns(), 0 };

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, getpid());
	dump_fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (dump_fd < 0)
		exit(1);
	put(h32, sizeof(h32));
	put(h64, sizeof(h64));
	/* the marker perf (and trecord) find the file by */
	if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, dump_fd, 0) == MAP_FAILED)
		exit(1);
}

static void dump_debug(const uint8_t *code, size_t off)
{
	static const char file[] = "/src/jitloop.js";
	uint32_t size = 32 + (16 + sizeof(file)) + (16 + 2);
	uint64_t v[2] = { (uintptr_t)code, 2 };
	uint64_t a0 = (uintptr_t)code + off, a1 = a0 + 4;
	int32_t l0[2] = { 10, 0 }, l1[2] = { 11, 0 };

	prefix(2, size);
	put(v, sizeof(v));
	put(&a0, 8);
	put(l0, 8);
	put(file, sizeof(file));
	put(&a1, 8);
	put(l1, 8);
	put("\xff", 2); /* the previous row's file */
}

static void dump_load(const uint8_t *code, const char *name)
{
	uint32_t size = 56 + (uint32_t)strlen(name) + 1 + CODE_SIZE;
	uint32_t ids[2] = { (uint32_t)getpid(), (uint32_t)gettid() };
	uint64_t v[4] = { (uintptr_t)code, (uintptr_t)code, CODE_SIZE, ++code_index };

	prefix(0, size);
	put(ids, sizeof(ids));
	put(v, sizeof(v));
	put(name, strlen(name) + 1);
	put(code, CODE_SIZE);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	const char *mode = argc > 2 ? argv[2] : "perfmap";
	const char *dir = argc > 3 ? argv[3] : ".";
	uint8_t *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t (*fn)(uint64_t);
	size_t len = strlen(mode);
	bool late = len > 5 && !strcmp(mode + len - 5, "-late");
	char base[32];

	if (page == MAP_FAILED)
		return 1;
	if (late) { /* "jitdump-late" runs as "jitdump", the file later */
		snprintf(base, sizeof(base), "%.*s", (int)(len - 5), mode);
		mode = base;
	}
	printf("pid %d code %p\n", getpid(), (void *)page);
	fflush(stdout);
	/* As JIT agents do (V8 --perf-prof, the JVMTI agent): the jitdump is
	 * opened and mapped at start, before the first code. */
	if ((!strcmp(mode, "jitdump") || !strcmp(mode, "phases")) && !late)
		open_dump(dir);
	fn = place(page, 0);
	if (late) {
		/* samples in unnamed code make a profiler read the maps now */
		spin(fn, LATE_SECS);
		if (!strcmp(mode, "jitdump"))
			open_dump(dir);
	}
	if (!strcmp(mode, "perfmap")) {
		write_perfmap(page);
		spin(fn, secs);
	} else if (!strcmp(mode, "perfmap-at-exit")) {
		spin(fn, secs);
		write_perfmap(page);
	} else if (!strcmp(mode, "jitdump") || !strcmp(mode, "phases")) {
		dump_debug(page, 0);
		dump_load(page, !strcmp(mode, "phases") ? "jit_phase1" : "jit_hot_loop");
		spin(fn, secs);
		if (!strcmp(mode, "phases")) {
			/* new code over the same range: a new load, later */
			fn = place(page, 0x40);
			dump_debug(page, 0x40);
			dump_load(page, "jit_phase2");
			spin(fn, secs);
		}
		prefix(3, 16); /* CODE_CLOSE */
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
