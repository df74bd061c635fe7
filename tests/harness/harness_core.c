// SPDX-License-Identifier: MIT
/*
 * A core dump (gdb's gcore, or the kernel's) as a harness case's memory
 * and registers: each PT_LOAD with file bytes becomes a captured range,
 * the NT_PRSTATUS note of the case's tid gives the registers. Segments the
 * dump left out (p_filesz 0) stay unreadable, as they would be to anyone
 * reading the core.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/procfs.h>
#include <sys/user.h>
#include "harness_case.h"

static void regs_of(struct harness_regs *r, const struct elf_prstatus *st)
{
	struct user_regs_struct u;

	memcpy(&u, &st->pr_reg, sizeof(u));
	r->rip = u.rip;
	r->rsp = u.rsp;
	r->rbp = u.rbp;
	r->rax = u.rax;
	r->r9 = u.r9;
	r->r11 = u.r11;
	r->r15 = u.r15;
	r->fs_base = u.fs_base;
}

/* Finds the NT_PRSTATUS of tid in a PT_NOTE segment's bytes. */
static int find_prstatus(Elf_Data *d, uint32_t tid, struct harness_regs *r)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		struct elf_prstatus st;

		if (nh.n_type != NT_PRSTATUS || nh.n_descsz < sizeof(st))
			continue;
		memcpy(&st, (const char *)d->d_buf + desc_off, sizeof(st));
		if ((uint32_t)st.pr_pid == tid) {
			regs_of(r, &st);
			return 0;
		}
	}
	return -ENOENT;
}

int harness_core_load(struct harness_case *c)
{
	int err = 0, found = -ENOENT;
	size_t nph = 0;
	int fd = open(c->core, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE || elf_getphdrnum(elf, &nph)) {
		err = -ENOEXEC;
		goto out;
	}
	struct harness_mem *mem = realloc(c->mem, (c->num_mem + nph) * sizeof(*mem));
	if (!mem) {
		err = -ENOMEM;
		goto out;
	}
	c->mem = mem;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph)) {
			err = -EINVAL;
			goto out;
		}
		if (ph.p_type == PT_NOTE && found) {
			Elf_Data *d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			if (d)
				found = find_prstatus(d, c->tid, &c->regs);
		}
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		struct harness_mem *m = &c->mem[c->num_mem];
		m->start = ph.p_vaddr;
		m->len = ph.p_filesz;
		m->bytes = malloc(m->len);
		if (!m->bytes) {
			err = -ENOMEM;
			goto out;
		}
		c->num_mem++;
		if (pread(fd, m->bytes, m->len, (off_t)ph.p_offset) != (ssize_t)m->len) {
			err = -EIO;
			goto out;
		}
	}
	err = found; /* no registers for the tid: not this process's core */
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
