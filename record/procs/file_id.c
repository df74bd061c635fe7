// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "record/procs/open_regular.h"
#include "record/procs/file_id.h"
#include "format/containers/u64map.h"

#define TREC_ID_CHUNK 4096

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v; /* x86-64/arm64 are little-endian, so ids match across hosts */
}

uint64_t trec_hash64(const void *data, size_t len, uint64_t seed)
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL;
	const uint8_t *p = data;
	uint64_t h = seed ^ (len * m);
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t k = rd64(p + i);

		k *= m;
		k ^= k >> 47;
		k *= m;
		h ^= k;
		h *= m;
	}
	if (len & 7) {
		uint64_t k = 0;

		memcpy(&k, p + i, len & 7);
		h ^= k;
		h *= m;
	}
	h ^= h >> 47;
	h *= m;
	h ^= h >> 47;
	return h;
}

/* Distinct seeds keep the two kinds of id apart. */
#define SEED_BUILD_ID 0x7472656362696400ULL /* "trecbid" */
#define SEED_CONTENT 0x7472656363746e00ULL  /* "trecctn" */

static uint64_t nonzero(uint64_t id)
{
	return id ? id : 1;
}

uint64_t trec_file_id_from_build_id(const uint8_t *build_id, size_t len)
{
	return nonzero(trec_hash64(build_id, len, SEED_BUILD_ID));
}

int trec_file_id_from_contents(int fd, uint64_t size, uint64_t *id)
{
	uint8_t buf[8 + 2 * TREC_ID_CHUNK];
	size_t head = size < TREC_ID_CHUNK ? size : TREC_ID_CHUNK;
	size_t tail = size - head < TREC_ID_CHUNK ? size - head : TREC_ID_CHUNK;
	ssize_t r;

	memcpy(buf, &size, 8);
	r = pread(fd, buf + 8, head, 0);
	if (r != (ssize_t)head)
		return r < 0 ? -errno : -EIO;
	r = pread(fd, buf + 8 + head, tail, size - tail);
	if (r != (ssize_t)tail)
		return r < 0 ? -errno : -EIO;
	*id = nonzero(trec_hash64(buf, 8 + head + tail, SEED_CONTENT));
	return 0;
}

/* Whether the file has CFI the unwinder uses, and whether gc built it: a
 * cheap look at the section headers, before its deltas are extracted.
 * Go's .debug_frame does not count: it does not track rbp and ends stacks
 * with an error at goexit, and gc keeps frame pointers; Go files get
 * frame-pointer rules and the rules of the runtime's roots and stack
 * switches instead (record/unwind/ehframe_gaps.c, go_roots.c). */
static bool elf_has_cfi(Elf *elf, bool *is_go)
{
	bool eh = false, debug = false, go = false;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		go |= !strcmp(n, ".gopclntab") || !strcmp(n, ".go.buildinfo") ||
		      !strcmp(n, ".note.go.buildid");
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		eh |= !strcmp(n, ".eh_frame");
		debug |= !strcmp(n, ".debug_frame");
	}
	*is_go = go;
	return eh || (debug && !go);
}

static void read_elf_facts(Elf *elf, struct trec_file *f)
{
	const void *bid = NULL;
	ssize_t bid_len;
	const char *link;
	GElf_Word crc;
	size_t nph;

	bid_len = dwelf_elf_gnu_build_id(elf, &bid);
	if (bid_len > 0 && bid_len <= TREC_MAX_BUILD_ID) {
		memcpy(f->build_id, bid, bid_len);
		f->build_id_len = bid_len;
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	f->debuglink = strdup(link ? link : "");
	f->has_cfi = elf_has_cfi(elf, &f->is_go);

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && f->num_loads < TREC_MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->num_loads++] = (struct trec_elf_load){
			.vaddr = ph.p_vaddr,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
}

int trec_file_describe(int fd, const char *path, struct trec_file *f)
{
	struct stat st;
	Elf *elf;
	int err;

	memset(f, 0, sizeof(*f));
	if (fstat(fd, &st))
		return -errno;
	f->size = st.st_size;
	f->inode = st.st_ino;
	f->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + st.st_mtim.tv_nsec;
	f->dev_major = major(st.st_dev);
	f->dev_minor = minor(st.st_dev);
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;

	elf_version(EV_CURRENT);
	/* (a file the process mapped: its header may ask libelf for millions
	 * of sections; such a file is described as not ELF) */
	elf = trec_elf_headers_bounded(fd) ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		f->is_elf = true;
		read_elf_facts(elf, f);
	}
	if (elf)
		elf_end(elf);
	if (!f->debuglink)
		f->debuglink = strdup("");
	if (!f->debuglink) {
		trec_file_release(f);
		return -ENOMEM;
	}

	if (f->build_id_len) {
		f->file_id = trec_file_id_from_build_id(f->build_id, f->build_id_len);
		return 0;
	}
	err = trec_file_id_from_contents(fd, f->size, &f->file_id);
	if (err)
		trec_file_release(f);
	return err;
}

void trec_file_release(struct trec_file *f)
{
	free(f->path);
	free(f->debuglink);
	f->path = f->debuglink = NULL;
}

bool trec_file_vaddr_of_offset(const struct trec_file *f, uint64_t offset, uint64_t *vaddr)
{
	const struct trec_elf_load *best = NULL;

	for (size_t i = 0; i < f->num_loads; i++) {
		const struct trec_elf_load *l = &f->loads[i];
		uint64_t lo = l->offset & ~4095ULL;

		if (offset < lo || offset >= l->offset + (l->filesz ? l->filesz : 1))
			continue;
		/* Segments can share a page; the executable one is meant. */
		if (!best || (l->exec && !best->exec))
			best = l;
	}
	if (!best) {
		*vaddr = offset;
		return false;
	}
	*vaddr = offset - best->offset + best->vaddr;
	return true;
}

/* ---- cache ---------------------------------------------------------------- */

struct trec_file_cache {
	struct trec_u64map by_key;
};

static uint64_t cache_key(const struct stat *st)
{
	uint64_t k[4] = {
		st->st_dev, st->st_ino, st->st_size,
		(uint64_t)st->st_mtim.tv_sec * 1000000000ULL + st->st_mtim.tv_nsec,
	};

	return trec_hash64(k, sizeof(k), 0);
}

static bool same_file(const struct trec_file *f, const struct stat *st)
{
	return f->inode == st->st_ino && f->size == (uint64_t)st->st_size &&
	       f->dev_major == major(st->st_dev) && f->dev_minor == minor(st->st_dev) &&
	       f->mtime_ns == (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + st->st_mtim.tv_nsec;
}

struct trec_file_cache *trec_file_cache_new(void)
{
	return calloc(1, sizeof(struct trec_file_cache));
}

int trec_file_cache_get(struct trec_file_cache *c, int fd, const struct stat *st,
			const char *path, struct trec_file **out)
{
	uint64_t key = cache_key(st);
	struct trec_file *f = trec_u64map_get(&c->by_key, key);
	int err;

	if (f && same_file(f, st)) {
		*out = f;
		return 0;
	}
	/* A hash collision on the key: the newer file takes the slot. */
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	err = trec_file_describe(fd, path, f);
	if (err) {
		free(f);
		return err;
	}
	struct trec_file *old = trec_u64map_put(&c->by_key, key, f, &err);
	if (err) {
		trec_file_release(f);
		free(f);
		return err;
	}
	if (old) {
		trec_file_release(old);
		free(old);
	}
	*out = f;
	return 0;
}

void trec_file_cache_free(struct trec_file_cache *c)
{
	uint64_t k;
	void *v;

	if (!c)
		return;
	for (size_t i = 0; trec_u64map_next(&c->by_key, &i, &k, &v);) {
		trec_file_release(v);
		free(v);
	}
	trec_u64map_free(&c->by_key);
	free(c);
}
