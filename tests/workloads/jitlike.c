/* A JIT-like workload: the functions of jitlike-fp.c (built with frame
 * pointers) run from a copy in anonymous executable memory, and call into
 * CFI'd code and back:
 *   main -> jit_outer [anon] -> rt_helper (C, rbp a general register)
 *        -> jit_inner [anon] -> jit_spin [anon]            (hot JIT leaf)
 *                            -> qsort (libc) -> cmp_cb (C)
 *                            -> rt_tick (C)
 * jit_gdb_offset is the copy's address - the original's ELF vaddr, so gdb
 * can unwind the copy with the binary's own CFI (an oracle independent of
 * frame pointers): add-symbol-file jitlike -o jit_gdb_offset.
 * usage: jitlike [seconds]   (default 1) */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "jitlike.h"

extern char __start_jitcode[], __stop_jitcode[];
long jit_offset, jit_gdb_offset;
volatile unsigned long jit_sink;

/* The first object is the program: its load bias. */
static int program_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(long *)out = (long)info->dlpi_addr;
	return 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) int cmp_cb(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) unsigned long rt_tick(unsigned long x)
{
	return x * 3 + 1;
}

/* Keeps enough values live across the call back into JIT code that GCC
 * needs rbp as a general register: the CFI says where it saved the JIT
 * caller's frame pointer. */
__attribute__((noinline)) unsigned long rt_helper(struct jit_env *e, unsigned long n)
{
	unsigned long a = n * 3, b = n ^ 0x55, c = n + 7, d = n >> 1, f = n * n, g = ~n;
	unsigned long seed = n;

	for (size_t i = 0; i < e->nbuf; i++) {
		seed = seed * 1103515245 + 12345;
		e->buf[i] = (int)(seed >> 16);
	}
	unsigned long r = e->inner(e, n);
	return r + a * b + c * d + f * g + (a ^ c) + (b ^ d) + (f ^ g);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	size_t len = (size_t)(__stop_jitcode - __start_jitcode);
	char *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static int buf[512];

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, __start_jitcode, len);
	if (mprotect(code, len, PROT_READ | PROT_EXEC))
		return 1;
	jit_offset = code - __start_jitcode;
	dl_iterate_phdr(program_bias, &jit_gdb_offset);
	jit_gdb_offset += jit_offset;
	struct jit_env e = {
		.helper = rt_helper,
		.inner = (void *)((char *)jit_inner + jit_offset),
		.qsort = qsort,
		.cmp = cmp_cb,
		.tick = rt_tick,
		.buf = buf,
		.nbuf = sizeof(buf) / sizeof(buf[0]),
	};
	unsigned long (*outer)(struct jit_env *, unsigned long) =
		(void *)((char *)jit_outer + jit_offset);
	do
		jit_sink += outer(&e, 20000);
	while (now() < end);
	printf("%lu\n", jit_sink & 1);
	return 0;
}
