/* A hot loop through libc's rand() and strtol(), called through the PLT:
 * a sample in a stub must read rand@plt / strtol@plt, as perf and objdump
 * name them, not the symbol before the PLT (_init).
 *
 * A stub is one indirect jmp: on some hosts the timer interrupt almost
 * never lands on it (0 of 40,000 samples at 20 kHz). So each call first
 * flushes the stub's GOT slot from the cache: the jmp then waits on
 * memory, and an interrupt in that wait reports the stub's pc.
 * usage: pltloop [seconds]   (default 1) */
#define _GNU_SOURCE
#include <elf.h>
#include <emmintrin.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const void *rand_slot, *strtol_slot;

/* A dynamic entry's address: ld.so may have relocated it in place. */
static uintptr_t dyn_addr(uintptr_t base, uintptr_t v)
{
	return v < base ? base + v : v;
}

/* The GOT slots of our own PLT entries for rand and strtol. */
static int find_slots(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uintptr_t base = info->dlpi_addr, jmprel = 0, symtab = 0, strtab = 0;
	size_t relsz = 0;
	const ElfW(Dyn) *dyn = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_JMPREL)
			jmprel = dyn_addr(base, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_PLTRELSZ)
			relsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SYMTAB)
			symtab = dyn_addr(base, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strtab = dyn_addr(base, dyn->d_un.d_ptr);
	}
	if (!jmprel || !symtab || !strtab)
		return 1; /* the executable comes first: stop either way */
	for (size_t k = 0; k < relsz / sizeof(ElfW(Rela)); k++) {
		const ElfW(Rela) *r = (const ElfW(Rela) *)jmprel + k;
		const ElfW(Sym) *s = (const ElfW(Sym) *)symtab + ELF64_R_SYM(r->r_info);
		const char *name = (const char *)strtab + s->st_name;

		if (!strcmp(name, "rand"))
			rand_slot = (const void *)(base + r->r_offset);
		else if (!strcmp(name, "strtol"))
			strtol_slot = (const void *)(base + r->r_offset);
	}
	return 1;
}

static void flush(const void *slot)
{
	if (slot) {
		_mm_clflush(slot);
		_mm_mfence();
	}
}

__attribute__((noinline)) static long plt_work(const char *digits, int n)
{
	long acc = 0;
	for (int i = 0; i < n; i++) {
		flush(rand_slot);
		acc += rand();
		flush(strtol_slot);
		acc += strtol(digits, NULL, 10);
	}
	return acc;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	long acc = 0;

	dl_iterate_phdr(find_slots, NULL);
	if (!rand_slot || !strtol_slot)
		fprintf(stderr, "pltloop: no GOT slot found for rand or strtol\n");
	while (now() < end)
		acc += plt_work("12345", 10000);
	printf("%ld\n", acc & 1);
	return 0;
}
