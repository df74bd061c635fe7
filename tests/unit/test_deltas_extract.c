// SPDX-License-Identifier: MIT
/*
 * Stack-delta extraction checked against an independent CFI interpreter:
 * binutils' `readelf --debug-dump=frames-interp`. For every address of
 * every FDE row readelf prints, the extracted rule must say the same CFA
 * register and offset, return address at CFA-8 (or STOP when it is
 * undefined) and rbp rule; CFA expressions must come out as PLT, DEREF or
 * UNSUPPORTED; addresses no FDE covers must be INVALID (or a synthesized
 * PLT/SIGNAL rule). Also: libc's signal trampoline, the PLT, _start, the
 * extraction time of libc.
 */
#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fake_delta_sink.h"
#include "unit_check.h"


#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

/* What readelf says about one row. */
enum oracle_kind { OR_RULE, OR_STOP, OR_SIGNAL, OR_EXPR, OR_UNSUPPORTED };
struct oracle_row {
	uint64_t start, end;
	enum oracle_kind kind;
	struct trec_unwind_info info; /* OR_RULE */
	int debug_frame;
};

struct oracle {
	struct oracle_row *v;
	size_t n, cap;
	size_t fdes;
};

static void oracle_push(struct oracle *o, const struct oracle_row *r)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4096;
		o->v = realloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = *r;
}

/* Splits a readelf row into columns; "r9 (r9)" is one column. */
static int columns(char *line, char **col, int max)
{
	int n = 0;
	for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n")) {
		if (t[0] == '(' && n > 0)
			continue;
		if (n < max)
			col[n++] = t;
	}
	return n;
}

/* Interprets a row given the header's column names. */
static void classify(struct oracle_row *r, char **names, char **vals, int n, int signal)
{
	const char *cfa = NULL, *ra = "u", *rbp = NULL;
	for (int i = 1; i < n; i++) {
		if (strcmp(names[i], "CFA") == 0)
			cfa = vals[i];
		else if (strcmp(names[i], "ra") == 0)
			ra = vals[i];
		else if (strcmp(names[i], "rbp") == 0)
			rbp = vals[i];
	}
	memset(&r->info, 0, sizeof(r->info));
	if (signal) {
		r->kind = OR_SIGNAL;
		return;
	}
	if (strcmp(ra, "u") == 0) {
		r->kind = OR_STOP;
		return;
	}
	if (strcmp(ra, "c-8") != 0 || !cfa) {
		r->kind = OR_UNSUPPORTED;
		return;
	}
	if (strcmp(cfa, "exp") == 0) {
		r->kind = OR_EXPR;
		return;
	}
	if (strncmp(cfa, "rsp", 3) == 0)
		r->info.cfa_reg = TREC_REG_SP;
	else if (strncmp(cfa, "rbp", 3) == 0)
		r->info.cfa_reg = TREC_REG_FP;
	else {
		r->kind = OR_UNSUPPORTED;
		return;
	}
	r->kind = OR_RULE;
	r->info.cfa_param = atoi(cfa + 3);
	/* readelf prints "u" both for "never mentioned" (the ABI default:
	 * callee-saved, same value) and for DW_CFA_undefined. */
	if (!rbp || strcmp(rbp, "u") == 0) {
		r->info.fp_rule = TREC_FP_SAME;
	} else if (rbp[0] == 'c' && (rbp[1] == '-' || rbp[1] == '+')) {
		r->info.fp_rule = TREC_FP_AT_CFA;
		r->info.fp_param = atoi(rbp + 1);
	} else {
		r->info.fp_rule = TREC_FP_UNDEFINED;
	}
}

static int in_exec(Elf *elf, uint64_t lo, uint64_t hi)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    lo >= ph.p_vaddr && hi <= ph.p_vaddr + ph.p_memsz)
			return 1;
	}
	return 0;
}

/* Parses readelf's frames-interp output into rows. 0 on success. */
static int read_oracle(const char *path, Elf *elf, struct oracle *o)
{
	char cmd[4200], line[4096], hdr[4096] = "";
	snprintf(cmd, sizeof(cmd), "readelf -wF '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char *names[64];
	int nnames = 0, in_fde = 0, debug_frame = 0, signal = 0;
	uint64_t fde_lo = 0, fde_hi = 0;
	struct oracle_row pending = { 0 };
	int have_pending = 0;
	/* CIE rows and whether the CIE has 'S', for FDEs that print no rows. */
	struct {
		unsigned long off;
		char hdr[4096], row[4096];
		int signal;
	} *cies = NULL;
	size_t ncies = 0;
	int fde_rows = 0;
	unsigned long fde_cie = 0;

#define FLUSH_FDE()                                                                                \
	do {                                                                                       \
		if (have_pending) {                                                                \
			pending.end = fde_hi;                                                      \
			oracle_push(o, &pending);                                                  \
			have_pending = 0;                                                          \
		}                                                                                  \
		if (in_fde && !fde_rows && fde_hi > fde_lo) {                                      \
			for (size_t c = 0; c < ncies; c++)                                         \
				if (cies[c].off == fde_cie) {                                      \
					char h[4096], rw[4096], *nm[64], *vl[64];                    \
					strcpy(h, cies[c].hdr);                                    \
					strcpy(rw, cies[c].row);                                   \
					int nn = columns(h, nm, 64), nv = columns(rw, vl, 64);     \
					struct oracle_row r = { .start = fde_lo, .end = fde_hi,    \
								.debug_frame = debug_frame }; \
					classify(&r, nm, vl, nn < nv ? nn : nv, cies[c].signal);   \
					oracle_push(o, &r);                                        \
				}                                                                  \
		}                                                                                  \
		in_fde = 0;                                                                        \
	} while (0)

	while (fgets(line, sizeof(line), p)) {
		unsigned long off, cie;
		uint64_t lo, hi;
		if (strncmp(line, "Contents of the .debug_frame", 28) == 0) {
			FLUSH_FDE();
			debug_frame = 1;
			continue;
		}
		if (strncmp(line, "Contents of the .eh_frame", 25) == 0) {
			FLUSH_FDE();
			debug_frame = 0;
			continue;
		}
		if (strstr(line, " CIE")) {
			FLUSH_FDE();
			if (sscanf(line, "%lx", &off) == 1) {
				cies = realloc(cies, (ncies + 1) * sizeof(*cies));
				memset(&cies[ncies], 0, sizeof(cies[ncies]));
				cies[ncies].off = off;
				char *aug = strchr(line, '"');
				char *aug_end = aug ? strchr(aug + 1, '"') : NULL;
				cies[ncies].signal = aug && aug_end &&
						     memchr(aug, 'S', (size_t)(aug_end - aug));
				ncies++;
			}
			continue;
		}
		if (strstr(line, " FDE ") &&
		    sscanf(line, "%lx %*x %*x FDE cie=%lx pc=%lx..%lx", &off, &cie, &lo, &hi) == 4) {
			FLUSH_FDE();
			in_fde = 1;
			fde_rows = 0;
			fde_lo = lo;
			fde_hi = hi;
			fde_cie = cie;
			signal = 0;
			for (size_t c = 0; c < ncies; c++)
				if (cies[c].off == cie)
					signal = cies[c].signal;
			if (in_exec(elf, lo, hi) && hi > lo)
				o->fdes++;
			else
				in_fde = 0;
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			if (!in_fde && ncies)
				snprintf(cies[ncies - 1].hdr, sizeof(cies[0].hdr), "%s", line);
			strcpy(hdr, line); /* names point into hdr */
			nnames = columns(hdr, names, 64);
			continue;
		}
		char *vals[64];
		char tmp[4096];
		strcpy(tmp, line);
		int nv = columns(tmp, vals, 64);
		if (nv < 2 || strlen(vals[0]) != 16 || !isxdigit((unsigned char)vals[0][0]))
			continue;
		if (!in_fde) {
			if (ncies && !cies[ncies - 1].row[0])
				snprintf(cies[ncies - 1].row, sizeof(cies[0].row), "%s", line);
			continue;
		}
		uint64_t loc = strtoull(vals[0], NULL, 16);
		fde_rows++;
		if (have_pending) {
			pending.end = loc;
			if (pending.end > pending.start)
				oracle_push(o, &pending);
		}
		pending = (struct oracle_row){ .start = loc, .debug_frame = debug_frame };
		classify(&pending, names, vals, nv < nnames ? nv : nnames, signal);
		have_pending = 1;
	}
	FLUSH_FDE();
	free(cies);
	/* readelf exits non-zero on harmless warnings; the rows are what counts. */
	pclose(p);
	return 0;
}

static int covered_by_eh(const struct oracle *o, uint64_t a)
{
	for (size_t i = 0; i < o->n; i++)
		if (!o->v[i].debug_frame && a >= o->v[i].start && a < o->v[i].end)
			return 1;
	return 0;
}

struct verdict {
	size_t addrs, mismatches, exprs, plt, deref, unsupported, stop, signal;
};

/* Compares every address of every oracle row (stride for big files). */
static void compare(const struct oracle *o, const struct trec_file_deltas *d, unsigned stride,
		    struct verdict *v)
{
	for (size_t i = 0; i < o->n; i++) {
		const struct oracle_row *r = &o->v[i];
		/* .debug_frame only counts where .eh_frame is silent. */
		if (r->debug_frame && covered_by_eh(o, r->start))
			continue;
		for (uint64_t a = r->start; a < r->end; a += stride) {
			struct resolved_rule got = source_rule(d, a);
			int ok;
			v->addrs++;
			switch (r->kind) {
			case OR_RULE: {
				struct resolved_rule want = { .info = r->info };
				ok = resolved_eq(&got, &want);
				break;
			}
			case OR_STOP:
				ok = got.command == CMD(TREC_CMD_STOP);
				v->stop++;
				break;
			case OR_SIGNAL:
				ok = got.command == CMD(TREC_CMD_SIGNAL);
				v->signal++;
				break;
			case OR_EXPR:
				v->exprs++;
				ok = got.command == CMD(TREC_CMD_PLT) ||
				     got.command == CMD(TREC_CMD_UNSUPPORTED) ||
				     (!got.command && (got.info.flags & TREC_UNWIND_F_DEREF_CFA));
				v->plt += got.command == CMD(TREC_CMD_PLT);
				v->deref += !got.command;
				break;
			default:
				ok = got.command == CMD(TREC_CMD_UNSUPPORTED);
				v->unsupported++;
				break;
			}
			/* The sigreturn byte match overrides any CFI. */
			if (!ok && got.command == CMD(TREC_CMD_SIGNAL))
				ok = 1;
			if (!ok && v->mismatches++ < 5)
				fprintf(stderr, "%#lx: kind %d cfa %d/%d fp %d/%d; got cmd %#x cfa %d/%d fp %d/%d\n",
					(unsigned long)a, r->kind, r->info.cfa_reg, r->info.cfa_param,
					r->info.fp_rule, r->info.fp_param, got.command, got.info.cfa_reg,
					got.info.cfa_param, got.info.fp_rule, got.info.fp_param);
		}
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct oracle_row *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Addresses between FDEs (inside the extracted span) must be INVALID
 * unless a PLT or sigreturn rule was synthesized there. */
/* Gaps between FDEs are INVALID (or a synthesized PLT/signal rule), but
 * the gap holding the ELF entry point, which is STOP (*entry_stops counts
 * its addresses). */
static size_t check_gaps(struct oracle *o, const struct trec_file_deltas *d, uint64_t entry,
			 size_t *entry_stops)
{
	size_t bad = 0;
	qsort(o->v, o->n, sizeof(o->v[0]), cmp_row);
	uint64_t covered = o->n ? o->v[0].start : 0;
	*entry_stops = 0;
	for (size_t i = 0; i < o->n; i++) {
		bool entry_gap = covered <= entry && entry < o->v[i].start;

		for (uint64_t a = covered; a < o->v[i].start; a++) {
			struct resolved_rule got = source_rule(d, a);
			if (entry_gap) {
				if (got.command == CMD(TREC_CMD_STOP))
					(*entry_stops)++;
				else if (bad++ < 5)
					fprintf(stderr, "entry gap %#lx: got cmd %#x\n", (unsigned long)a,
						got.command);
				continue;
			}
			if (got.command != CMD(TREC_CMD_INVALID) && got.command != CMD(TREC_CMD_PLT) &&
			    got.command != CMD(TREC_CMD_SIGNAL) &&
			    !(got.command == 0 && got.info.cfa_reg == TREC_REG_SP &&
			      got.info.cfa_param >= 8 && got.info.cfa_param <= 24) &&
			    bad++ < 5)
				fprintf(stderr, "gap %#lx: got cmd %#x\n", (unsigned long)a, got.command);
		}
		if (o->v[i].end > covered)
			covered = o->v[i].end;
	}
	struct resolved_rule after = source_rule(d, covered);
	if (after.command != CMD(TREC_CMD_INVALID))
		bad++;
	return bad;
}

static Elf *open_elf(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	return *fd < 0 ? NULL : elf_begin(*fd, ELF_C_READ_MMAP, NULL);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The extracted rule at vaddr must be cmd. */
static int rule_is(const struct trec_file_deltas *d, uint64_t a, uint16_t cmd)
{
	return source_rule(d, a).command == cmd;
}

/* vaddr of the first occurrence of bytes in an executable section, or 0. */
static uint64_t find_code(Elf *elf, const void *bytes, size_t n)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(s, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type != SHT_PROGBITS || !(data = elf_getdata(s, NULL)))
			continue;
		const uint8_t *m = memmem(data->d_buf, data->d_size, bytes, n);
		if (m)
			return sh.sh_addr + (uint64_t)(m - (const uint8_t *)data->d_buf);
	}
	return 0;
}

static int section_range(Elf *elf, const char *name, uint64_t *lo, uint64_t *hi)
{
	size_t shstr;
	elf_getshdrstrndx(elf, &shstr);
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && strcmp(elf_strptr(elf, shstr, sh.sh_name), name) == 0) {
			*lo = sh.sh_addr;
			*hi = sh.sh_addr + sh.sh_size;
			return 1;
		}
	}
	return 0;
}

static void check_file(const char *name, const char *path, unsigned stride, int is_libc)
{
	char label[512];
	struct trec_file_deltas d;
	struct timespec t0;
	int fd;
	Elf *elf = open_elf(path, &fd);
	if (!elf) {
		snprintf(label, sizeof(label), "extract: %s opens", name);
		CHECK(label, 0);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int err = trec_deltas_extract(path, &d);
	double ms = ms_since(&t0);
	snprintf(label, sizeof(label), "extract: %s", name);
	CHECK(label, err == 0 && d.num > 0);
	if (err)
		goto out;

	struct oracle o = { 0 };
	snprintf(label, sizeof(label), "extract: %s readelf -wF parses", name);
	CHECK(label, read_oracle(path, elf, &o) == 0 && o.n > 0);
	snprintf(label, sizeof(label), "extract: %s FDE count matches readelf", name);
	CHECK(label, o.fdes == d.fdes);
	if (o.fdes != d.fdes)
		fprintf(stderr, "readelf %zu FDEs, extraction %zu\n", o.fdes, d.fdes);

	struct verdict v = { 0 };
	compare(&o, &d, stride, &v);
	snprintf(label, sizeof(label), "extract: %s rules agree with readelf at every checked address",
		 name);
	CHECK(label, v.mismatches == 0 && v.addrs > 0);
	GElf_Ehdr eh;
	size_t entry_stops = 0;

	snprintf(label, sizeof(label),
		 "extract: %s addresses outside FDEs are INVALID, the entry point's gap STOP", name);
	CHECK(label, gelf_getehdr(elf, &eh) && check_gaps(&o, &d, eh.e_entry, &entry_stops) == 0);
	if (!strcmp(name, "ld.so")) {
		/* Its _start/_dl_start_user (RTLD_START) has no CFI. */
		snprintf(label, sizeof(label), "extract: ld.so's entry code is STOP (%zu bytes)",
			 entry_stops);
		CHECK(label, entry_stops >= 16);
	}
	printf("%s: %zu deltas from %zu FDEs in %.1f ms; %zu addresses checked (stop %zu, signal %zu, "
	       "expr %zu: plt %zu deref %zu), %zu unsupported rows\n",
	       name, d.num, d.fdes, ms, v.addrs, v.stop, v.signal, v.exprs, v.plt, v.deref,
	       d.unsupported_rules);

	uint64_t plo, phi;
	if (section_range(elf, ".plt", &plo, &phi) && phi - plo > 32) {
		snprintf(label, sizeof(label), "extract: %s .plt entries use the PLT command", name);
		CHECK(label, rule_is(&d, plo + 16, CMD(TREC_CMD_PLT)) &&
				     rule_is(&d, phi - 1, CMD(TREC_CMD_PLT)));
	}
	if (is_libc) {
		static const uint8_t sigret[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
		uint64_t va = find_code(elf, sigret, sizeof(sigret));
		CHECK("extract: libc signal trampoline is SIGNAL from 1 byte early",
		      va && rule_is(&d, va - 1, CMD(TREC_CMD_SIGNAL)) &&
			      rule_is(&d, va + 8, CMD(TREC_CMD_SIGNAL)));
	}
	free(o.v);
	trec_file_deltas_free(&d);
out:
	elf_end(elf);
	close(fd);
}

/* A function's address in path's .symtab, or 0. */
static uint64_t sym_addr(const char *path, const char *name)
{
	int fd;
	uint64_t a = 0;
	Elf *elf = open_elf(path, &fd);
	for (Elf_Scn *s = elf ? elf_nextscn(elf, NULL) : NULL; s && !a; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		Elf_Data *d = gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB ? elf_getdata(s, NULL) : NULL;
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n = gelf_getsym(d, (int)i, &sym) ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
			if (n && !strcmp(n, name))
				a = sym.st_value;
		}
	}
	if (elf) {
		elf_end(elf);
		close(fd);
	}
	return a;
}

/* sepcfi's own code has CFI only in sepcfi.debug (.gnu_debuglink): its
 * rules come from there, and a copy without the debug file has none. */
static void check_sepdebug(const char *path)
{
	struct trec_file_deltas d;
	char copy[] = "/tmp/trec-sepcfi.XXXXXX", cmd[8192];
	uint64_t leaf = sym_addr(path, "sep_leaf");
	int fd = mkstemp(copy);
	CHECK("extract: sepcfi: CFI from its .gnu_debuglink debug file covers sep_leaf",
	      leaf && trec_deltas_extract(path, &d) == 0 &&
		      !rule_is(&d, leaf + 4, CMD(TREC_CMD_INVALID)));
	trec_file_deltas_free(&d);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
	CHECK("extract: sepcfi without its debug file: sep_leaf has no rule",
	      fd >= 0 && system(cmd) == 0 && trec_deltas_extract(copy, &d) == 0 &&
		      rule_is(&d, leaf + 4, CMD(TREC_CMD_INVALID)));
	trec_file_deltas_free(&d);
	if (fd >= 0) {
		close(fd);
		unlink(copy);
	}
}

int main(void)
{
	const char *root = getenv("TREC_ROOT");
	char path[4096];
	check_file("libc", "/lib/x86_64-linux-gnu/libc.so.6", 1, 1);
	check_file("ld.so", "/lib64/ld-linux-x86-64.so.2", 1, 0);
	check_file("libstdc++", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 3, 0);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		check_file("this test binary", path, 1, 0);
	}
	/* The workloads, when tests/workloads has been built. */
	static const char *const wl[] = { "busy", "cxxexcept", "dlmain", "libdlspin.so", "partcfi", "realign", "sighandler", "threads" };
	for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++) {
		snprintf(path, sizeof(path), "%s/build/workloads/%s", root ? root : ".", wl[i]);
		if (access(path, R_OK) == 0)
			check_file(wl[i], path, 1, 0);
	}
	snprintf(path, sizeof(path), "%s/build/workloads/sepcfi", root ? root : ".");
	if (access(path, R_OK) == 0)
		check_sepdebug(path);
	CHECK("extract: a missing file is an error", trec_deltas_extract("/nonexistent", &(struct trec_file_deltas){0}) == -ENOENT);
	CHECK("extract: a non-ELF file is an error", trec_deltas_extract("/etc/passwd", &(struct trec_file_deltas){0}) == -ENOEXEC);
	return failures ? 1 : 0;
}
