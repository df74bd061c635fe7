// SPDX-License-Identifier: MIT
/* perf's build-id cache for a perf.data export (see perf_buildid_cache.h). */
#include "report/output/perf_data/perf_buildid_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_elf.h"
#include "report/archive/archive_store.h"

void pd_kernel_build_id(const struct rp_recording *rec, uint8_t out[20])
{
	uint64_t h[3] = { 0x6b, 0x73, 0x79 };
	for (int k = 0; k < 3; k++) {
		h[k] = rp_hash_u64(h[k] ^ rec->nksyms);
		for (size_t i = 0; i < rec->nksyms; i++)
			h[k] = rp_hash_bytes(&rec->ksyms[i], sizeof(rec->ksyms[i]), h[k] + (uint64_t)k);
	}
	memcpy(out, h, 20);
}

static void hex(char *out, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static int mkdirs(const char *path)
{
	char p[4096];
	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*s = c;
	}
}

/* A recorded path as a relative path under the cache: no empty, "." or
 * ".." components (a damaged recording must not write outside DIR). */
static void cache_path(const char *path, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = path; *p && o + 2 < len;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n)
			break;
		bool dots = (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.');
		if (o)
			out[o++] = '/';
		for (size_t i = 0; i < n && o + 1 < len; i++)
			out[o++] = dots ? '_' : p[i];
		p += n;
	}
	if (!o)
		o = (size_t)snprintf(out, len, "unnamed");
	out[o < len ? o : len - 1] = 0;
}

struct cache {
	const char *dir;
	unsigned files;
	int failed;
};

__attribute__((format(printf, 2, 3))) static void fail(struct cache *c, const char *fmt, ...)
{
	va_list ap;
	if (c->failed++)
		return; /* one message: the rest fail for the same reason */
	fprintf(stderr, "treport: build-id cache %s: ", c->dir);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* DIR/PATH/BID/, with DIR/.build-id/xx/yyyy pointing at it; out gets the
 * directory. */
static int entry_dir(struct cache *c, const char *path, const uint8_t *id, uint32_t idlen,
		     char *out, size_t len)
{
	char rel[2048], bid[2 * 20 + 1], link[4096], target[4096];
	cache_path(path, rel, sizeof(rel));
	hex(bid, id, idlen);
	int n = snprintf(out, len, "%s/%s/%s", c->dir, rel, bid);
	int k = snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", c->dir, bid, bid + 2);
	int t = snprintf(target, sizeof(target), "../../%s/%s", rel, bid);
	if (n < 0 || (size_t)n >= len || k < 0 || (size_t)k >= sizeof(link) || t < 0 ||
	    (size_t)t >= sizeof(target)) {
		fail(c, "%s: path too long", path);
		return -1;
	}
	int rc = mkdirs(out);
	if (!rc) {
		char *slash = strrchr(link, '/');
		*slash = 0;
		rc = mkdirs(link);
		*slash = '/';
	}
	if (!rc && (unlink(link), symlink(target, link)))
		rc = -errno;
	if (rc) {
		fail(c, "%s: %s", path, strerror(-rc));
		return -1;
	}
	return 0;
}

/*
 * perf turns every user symbol's address into a file offset: Debian's perf
 * 6.1 with the p_vaddr - p_offset of the PT_LOAD holding it, older ones
 * with its section's sh_addr - sh_offset; both read the binary itself when
 * it finds one (the runtime image), else the cache file. The empty
 * segments and sections of the file written here get the offsets the code
 * has in the binary (address - delta), so that every way gives the file
 * offsets the MMAP2 pgoffs are in (perf_data_layout.c).
 */
static int set_offsets(const char *path, uint64_t delta, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), rc = -1;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_RDWR, NULL) : NULL;
	if (e && elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT)) {
		rc = 0;
		for (Elf_Scn *scn = NULL; !rc && (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				rc = -1;
			else if (sh.sh_type == SHT_NOBITS && (sh.sh_flags & SHF_ALLOC) &&
				 sh.sh_addr >= delta) {
				sh.sh_offset = sh.sh_addr - delta;
				rc = gelf_update_shdr(scn, &sh) ? 0 : -1;
			}
		}
		size_t nph = 0;
		if (!rc && elf_getphdrnum(e, &nph))
			rc = -1;
		for (size_t i = 0; !rc && i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph))
				rc = -1;
			else if (ph.p_type == PT_LOAD && ph.p_vaddr >= delta) {
				ph.p_offset = ph.p_vaddr - delta;
				rc = gelf_update_phdr(e, (int)i, &ph) ? 0 : -1;
			}
		}
		if (!rc && elf_update(e, ELF_C_WRITE) < 0)
			rc = -1;
	}
	if (rc)
		snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : elf_errmsg(-1));
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* An embedded archive as DIR/PATH/BID/debug. */
static void write_archive(struct cache *c, const struct rp_report *r, const struct pd_dso *d)
{
	const struct rp_model *m = r->m;
	const char *name = rp_str(&m->strs, d->name);
	const struct trec_archive *a = m->archives ?
		trec_archive_store_get(m->archives, d->file_id, name) : NULL;
	char dir[4096], path[4200], err[512] = "";
	if (!a || entry_dir(c, name, d->build_id, d->build_id_len, dir, sizeof(dir)))
		return;
	/* Names as treport shows them, versions and @plt included (perf keeps
	 * what the symbol table says). */
	struct trec_arc_tables t = *trec_archive_tables(a);
	/* perf looks for a vdso only as .../vdso, for the rest also .../debug */
	snprintf(path, sizeof(path), "%s/%s", dir, strncmp(name, "[vdso", 5) ? "debug" : "vdso");
	if (trec_archive_tables_write_elf(&t, path, err, sizeof(err)) ||
	    set_offsets(path, d->delta, err, sizeof(err)))
		fail(c, "%s", err);
	else
		c->files++;
}

/* A synthetic DSO: its symbols as an ELF file (see perf_data_layout.h). */
static void write_synthetic(struct cache *c, const struct rp_report *r, const struct pd_dso *d,
			    uint16_t machine)
{
	const char *name = rp_str(&r->m->strs, d->name);
	char dir[4096], path[4200], err[512] = "";
	if (entry_dir(c, name, d->build_id, d->build_id_len, dir, sizeof(dir)))
		return;
	struct trec_arc_tables t = {
		.e_machine = machine, .elf_class = ELFCLASS64, .e_type = ET_DYN,
		.build_id_len = (uint8_t)d->build_id_len,
	};
	memcpy(t.build_id, d->build_id, d->build_id_len);
	t.num_strings = t.num_syms = d->nsyms;
	t.strings = xcalloc(d->nsyms + 1, sizeof(*t.strings));
	t.syms = xcalloc(d->nsyms + 1, sizeof(*t.syms));
	for (uint32_t k = 0; k < d->nsyms; k++) {
		t.strings[k] = rp_str(&r->m->strs, d->syms[k]);
		t.syms[k] = (struct trec_arc_sym){
			.addr = PD_SYNTH_FIRST + (uint64_t)k * PD_SYNTH_SYM_SIZE,
			.size = PD_SYNTH_SYM_SIZE, .name = k, .bind = TREC_ARC_BIND_GLOBAL,
		};
	}
	snprintf(path, sizeof(path), "%s/debug", dir);
	if (trec_archive_tables_write_elf(&t, path, err, sizeof(err)) ||
	    set_offsets(path, 0, err, sizeof(err)))
		fail(c, "%s", err);
	else
		c->files++;
	free(t.strings);
	free(t.syms);
}

/* The recording's kernel symbols in /proc/kallsyms form. Module symbols
 * lose their [module] tag: perf would drop them without a map per module.
 * _text, type A (perf's reference for relocation, never a symbol), at the
 * start of the kernel map. */
static void write_kallsyms(struct cache *c, const struct rp_report *r, const uint8_t *id,
			   uint64_t text)
{
	const struct rp_recording *rec = &r->m->recs[0];
	char dir[4096], path[4200];
	if (entry_dir(c, "[kernel.kallsyms]", id, 20, dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		fail(c, "%s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%016" PRIx64 " A _text\n", text);
	for (size_t i = 0; i < rec->nksyms; i++)
		fprintf(f, "%016" PRIx64 " t %s\n", rec->ksyms[i].addr,
			rp_str(&r->m->strs, rec->ksyms[i].name));
	if (fclose(f))
		fail(c, "%s: %s", path, strerror(errno));
	else
		c->files++;
}

/* The ELF machine of the synthetic files: the archives', else the host's. */
static uint16_t machine_of(const struct rp_report *r, const struct pd_dso *dsos, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct trec_archive *a = dsos[i].file_id && r->m->archives ?
			trec_archive_store_get(r->m->archives, dsos[i].file_id, "?") : NULL;
		if (a)
			return trec_archive_tables(a)->e_machine;
	}
	return !strcmp(r->m->recs[0].hdr.machine, "aarch64") ? EM_AARCH64 : EM_X86_64;
}

int pd_buildid_cache_write(const struct rp_report *r, const struct pd_layout *l, const char *dir,
			   const uint8_t kernel_id[20], uint64_t kernel_text, unsigned *files)
{
	struct cache c = { .dir = dir };
	int rc = mkdirs(dir);
	if (rc) {
		fail(&c, "cannot create it: %s", strerror(-rc));
		return -1;
	}
	uint32_t n;
	const struct pd_dso *dsos = pd_layout_dsos(l, &n);
	uint16_t machine = machine_of(r, dsos, n);
	for (uint32_t i = 0; i < n && !c.failed; i++) {
		if (!dsos[i].build_id_len)
			continue; /* perf finds such a file only by its path */
		if (dsos[i].file_id)
			write_archive(&c, r, &dsos[i]);
		else
			write_synthetic(&c, r, &dsos[i], machine);
	}
	if (kernel_text && !c.failed)
		write_kallsyms(&c, r, kernel_id, kernel_text);
	*files = c.files;
	return c.failed ? -1 : 0;
}
