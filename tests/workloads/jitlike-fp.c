/* The "JIT code" of jitlike.c: built with frame pointers, in its own
 * section, and run from a copy in anonymous executable memory, as a JIT's
 * code is. Copyable: no globals, no jump tables, and no direct call out of
 * the section (struct jit_env has the addresses). */
#include "jitlike.h"

#define JIT __attribute__((section("jitcode"), noinline, used))

/* The hot leaf: JIT code looping in its own frame (the call at its end
 * makes GCC set up the frame, as JIT compilers always do). */
JIT unsigned long jit_spin(struct jit_env *e, unsigned long n)
{
	unsigned long s = e->spin;
	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005UL + (i ^ (s >> 29));
	e->spin = e->tick(s);
	return s;
}

/* JIT -> JIT, JIT -> libc (qsort, calling back into C), JIT -> C leaf. */
JIT unsigned long jit_inner(struct jit_env *e, unsigned long n)
{
	unsigned long s = jit_spin(e, n);

	e->qsort(e->buf, e->nbuf, sizeof(e->buf[0]), e->cmp);
	s += e->tick(s);
	return s + (unsigned long)e->buf[0];
}

/* JIT -> C runtime helper (CFI, rbp a general register) -> JIT. */
JIT unsigned long jit_outer(struct jit_env *e, unsigned long n)
{
	unsigned long r = e->helper(e, n);

	return r + 1;
}
