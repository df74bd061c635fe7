/* Stack realignment: an over-aligned local makes GCC realign rsp in
 * aligned_frame and describe its CFA as a dereference (DW_OP_breg6 -16;
 * DW_OP_deref), the DEREF_CFA rule; it also keeps rbp as a frame pointer
 * there, the only function of the workloads that does; rbp_borrower
 * between it and the leaf saves and restores that rbp.
 * usage: realign [seconds]   (default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long leaf_spin(volatile char *buf, unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += (i * i ^ (s >> 3)) + buf[i & 63];
	return s;
}

/* rbp as a general register between leaf_spin and aligned_frame: its
 * prologue saves aligned_frame's frame pointer, so a walk restores rbp
 * from this frame's stack and aligned_frame's CFA rule reads it (the
 * replay must check that saved word; bpf/native_unwind.h's
 * read_stack_fp_word). */
__attribute__((noinline)) static unsigned long rbp_borrower(volatile char *buf, unsigned long n)
{
	unsigned long r;

	__asm__ volatile("" ::: "rbp");
	r = leaf_spin(buf, n);
	sink += r;
	return r + 1;
}

/* An over-aligned local plus a variable-length array: GCC keeps the
 * incoming stack pointer in r10 (DRAP), realigns rsp, and describes the
 * CFA as *(rbp - 16) once r10 is saved. */
__attribute__((noipa)) static unsigned long aligned_frame(unsigned long n)
{
	_Alignas(64) volatile char buf[64];
	volatile char vla[(n & 127) + 1];
	for (int i = 0; i < 64; i++)
		buf[i] = (char)(n + (unsigned long)i);
	vla[0] = buf[3];
	return rbp_borrower(buf, n) + vla[0];
}

__attribute__((noinline)) static unsigned long outer(unsigned long n)
{
	unsigned long r = aligned_frame(n);
	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	while (now() < end)
		sink += outer(200000);
	printf("%lu\n", (unsigned long)(sink & 1));
	return 0;
}
