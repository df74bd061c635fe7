// SPDX-License-Identifier: MIT
/*
 * Case files written by capture.py: registers, mappings, a stack snapshot
 * or a core dump, gdb's frames and (Python cases) the interpreter's own
 * stack. Line-oriented text; see capture.py for the writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness_case.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Reads hex lines into m->bytes until len bytes are filled. */
static int read_mem(FILE *f, struct harness_mem *m)
{
	char line[256];
	size_t got = 0;
	m->bytes = malloc(m->len ? m->len : 1);
	if (!m->bytes)
		return -ENOMEM;
	while (got < m->len && fgets(line, sizeof(line), f)) {
		for (char *p = line; p[0] && p[1] && got < m->len; p += 2) {
			int hi = hexval(p[0]), lo = hexval(p[1]);
			if (hi < 0 || lo < 0)
				break;
			m->bytes[got++] = (uint8_t)(hi << 4 | lo);
		}
	}
	return got == m->len ? 0 : -EINVAL;
}

static int set_reg(struct harness_regs *r, const char *name, uint64_t v)
{
	static const struct {
		const char *name;
		size_t off;
	} regs[] = {
		{ "rip", offsetof(struct harness_regs, rip) }, { "rsp", offsetof(struct harness_regs, rsp) },
		{ "rbp", offsetof(struct harness_regs, rbp) }, { "rax", offsetof(struct harness_regs, rax) },
		{ "r9", offsetof(struct harness_regs, r9) },   { "r11", offsetof(struct harness_regs, r11) },
		{ "r15", offsetof(struct harness_regs, r15) },
		{ "fs_base", offsetof(struct harness_regs, fs_base) },
		/* arm64 cases (tests/arm64/capture_qemu.py) */
		{ "pc", offsetof(struct harness_regs, rip) }, { "sp", offsetof(struct harness_regs, rsp) },
		{ "x29", offsetof(struct harness_regs, rbp) }, { "x30", offsetof(struct harness_regs, lr) },
	};
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strcmp(regs[i].name, name) == 0) {
			memcpy((char *)r + regs[i].off, &v, sizeof(v));
			return 0;
		}
	return -EINVAL;
}

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			size_t c_ = (cap) ? 2 * (cap) : 16;                                        \
			void *p_ = realloc((arr), c_ * sizeof(*(arr)));                            \
			if (!p_)                                                                   \
				goto nomem;                                                        \
			(arr) = p_;                                                                \
			(cap) = c_;                                                                \
		}                                                                                  \
	} while (0)

/* "pyframe<TAB>qualname<TAB>file<TAB>line<TAB>entry" */
static int parse_pyframe(char *line, struct harness_pyframe *p)
{
	char *save = NULL, *f[5];
	int n = 0;

	memset(p, 0, sizeof(*p));
	for (char *t = strtok_r(line, "\t", &save); t && n < 5; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 5 || strcmp(f[0], "pyframe") || (f[4][0] != '0' && f[4][0] != '1'))
		return -EINVAL;
	p->line = atoi(f[3]);
	p->entry = f[4][0] == '1';
	p->qualname = strdup(f[1]);
	p->file = strdup(f[2]);
	return p->qualname && p->file ? 0 : -ENOMEM;
}

int harness_case_read(const char *path, struct harness_case *c)
{
	char line[4608];
	size_t cap_maps = 0, cap_mem = 0, cap_frames = 0, cap_exp = 0, cap_py = 0;
	int err = 0, lineno = 0;
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "trec-case 1", 11) != 0) {
		err = -EINVAL;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64], s[4096];
		unsigned long long a, b, o;
		int n;
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "pid %u", &c->pid) == 1 || sscanf(line, "tid %u", &c->tid) == 1)
			continue;
		if (sscanf(line, "reg %63s %llx", name, &a) == 2) {
			if (set_reg(&c->regs, name, a))
				goto bad;
		} else if (sscanf(line, "map %llx %llx %llx %n", &a, &b, &o, &n) == 3) {
			GROW(c->maps, c->num_maps, cap_maps);
			struct harness_map *m = &c->maps[c->num_maps++];
			m->start = a;
			m->end = b;
			m->offset = o;
			m->path = strdup(line + n);
			if (!m->path)
				goto nomem;
		} else if (sscanf(line, "mem %llx %llx", &a, &b) == 2) {
			GROW(c->mem, c->num_mem, cap_mem);
			struct harness_mem *m = &c->mem[c->num_mem];
			m->start = a;
			m->len = b;
			err = read_mem(f, m);
			c->num_mem++;
			if (err)
				goto out;
		} else if (sscanf(line, "frame %llx %n", &a, &n) == 1) {
			GROW(c->frames, c->num_frames, cap_frames);
			c->frames[c->num_frames].pc = a;
			c->frames[c->num_frames].name = strdup(line + n);
			if (!c->frames[c->num_frames++].name)
				goto nomem;
		} else if (sscanf(line, "gdb-stop %d %4095[^\n]", &c->gdb_stop, s) >= 1) {
			c->gdb_outermost = strcmp(s, "outermost") == 0;
		} else if (sscanf(line, "expect-stop-in %4095s", s) == 1) {
			GROW(c->stop_in, c->num_stop_in, cap_exp);
			if (!(c->stop_in[c->num_stop_in++] = strdup(s)))
				goto nomem;
		} else if (sscanf(line, "core %4095[^\n]", s) == 1) {
			free(c->core);
			if (!(c->core = strdup(s)))
				goto nomem;
		} else if (strncmp(line, "pyframe\t", 8) == 0) {
			GROW(c->pyframes, c->num_pyframes, cap_py);
			err = parse_pyframe(line, &c->pyframes[c->num_pyframes++]);
			if (err == -ENOMEM)
				goto nomem;
			if (err)
				goto bad;
		} else if (strcmp(line, "end") != 0 && line[0] != '#' && line[0]) {
			goto bad;
		}
	}
	if (c->core) {
		err = harness_core_load(c);
		if (err)
			fprintf(stderr, "%s: core %s: %s\n", path, c->core, strerror(-err));
	}
	goto out;
bad:
	fprintf(stderr, "%s: line %d: cannot parse: %.80s\n", path, lineno + 1, line);
	err = -EINVAL;
	goto out;
nomem:
	err = -ENOMEM;
out:
	fclose(f);
	if (err)
		harness_case_free(c);
	return err;
}

void harness_case_free(struct harness_case *c)
{
	for (size_t i = 0; i < c->num_maps; i++)
		free(c->maps[i].path);
	for (size_t i = 0; i < c->num_mem; i++)
		free(c->mem[i].bytes);
	for (size_t i = 0; i < c->num_frames; i++)
		free(c->frames[i].name);
	for (size_t i = 0; i < c->num_stop_in; i++)
		free(c->stop_in[i]);
	for (size_t i = 0; i < c->num_pyframes; i++) {
		free(c->pyframes[i].qualname);
		free(c->pyframes[i].file);
	}
	free(c->pyframes);
	free(c->core);
	free(c->maps);
	free(c->mem);
	free(c->frames);
	free(c->stop_in);
	memset(c, 0, sizeof(*c));
}
