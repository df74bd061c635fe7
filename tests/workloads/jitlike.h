/* Shared by jitlike.c and its "JIT code", jitlike-fp.c. */
#ifndef JITLIKE_H
#define JITLIKE_H

#include <stddef.h>

/* Everything the JIT code reaches outside itself, by absolute address: it
 * runs from a copy, where rip-relative references would miss. */
struct jit_env {
	unsigned long (*helper)(struct jit_env *e, unsigned long n);
	unsigned long (*inner)(struct jit_env *e, unsigned long n); /* the copy's */
	void (*qsort)(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
	int (*cmp)(const void *, const void *);
	unsigned long (*tick)(unsigned long x);
	int *buf;
	size_t nbuf;
	unsigned long spin;
};

unsigned long jit_outer(struct jit_env *e, unsigned long n);
unsigned long jit_inner(struct jit_env *e, unsigned long n);
unsigned long jit_spin(struct jit_env *e, unsigned long n);

#endif
