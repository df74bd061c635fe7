// SPDX-License-Identifier: MIT
/*
 * trec-harness [-v] CASE...: unwinds each captured thread state offline
 * with the real BPF unwinder and compares its frames with gdb's.
 * trec-harness --lookup ELF...: checks the BPF get_stack_delta() against
 * the extracted deltas at every address of each file's delta pages.
 *
 * Per case: every mapped file's deltas are extracted and loaded through the
 * real delta store into fake maps, the mappings go into the emulated LPM
 * trie, and the program runs on the captured registers and stack. The
 * verdict, one PASS/FAIL line per case:
 *  - every frame both have must be the same pc (a wrong frame fails);
 *  - where gdb reached the outermost frame the unwinder must reach it too,
 *    without an error, unless the case names a function it may stop in
 *    (code without CFI) and the unwinder stopped there with an error;
 *  - where gdb gave up, frames beyond gdb's are reported as unverified.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness_case.h"
#include "unwind_tables.h"
#include "../unit/fake_delta_sink.h"

struct known_file {
	char *path;
	uint64_t file_id;
	int load_err; /* extraction or store error, 0 if loaded */
	Dwfl *dwfl;   /* symbolizer, offline at the ELF's own addresses */
	Dwfl_Module *mod;
};

struct harness {
	struct harness_env env;
	struct trec_delta_store *store;
	struct known_file **files; /* stable pointers: cases keep them */
	size_t num_files;
	int verbose;
	size_t cases, passed, frames_compared, frames_unverified;
};

static uint64_t path_file_id(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (const char *p = path; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h ? h : 1;
}

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static struct known_file *file_for(struct harness *h, const char *path)
{
	for (size_t i = 0; i < h->num_files; i++)
		if (strcmp(h->files[i]->path, path) == 0)
			return h->files[i];
	struct known_file **v = realloc(h->files, (h->num_files + 1) * sizeof(*v));
	if (!v)
		return NULL;
	h->files = v;
	struct known_file *f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	h->files[h->num_files++] = f;
	f->file_id = path_file_id(path);

	struct trec_file_deltas d;
	f->load_err = trec_deltas_extract(path, &d);
	if (!f->load_err) {
		f->load_err = trec_delta_store_load(h->store, f->file_id, &d);
		trec_file_deltas_free(&d);
	}
	if (f->load_err)
		fprintf(stderr, "%s: no deltas: %s\n", path, strerror(-f->load_err));
	f->dwfl = dwfl_begin(&dwfl_cb);
	if (f->dwfl) {
		f->mod = dwfl_report_elf(f->dwfl, path, path, -1, 0, false);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	return f;
}

static const char *symbolize(struct known_file *f, uint64_t vaddr)
{
	const char *n = f && f->mod ? dwfl_module_addrname(f->mod, vaddr) : NULL;
	return n ? n : "??";
}

/* bias = runtime start - ELF vaddr of the mapping's file offset. */
static int mapping_bias(const struct harness_map *m, uint64_t *bias)
{
	int fd = open(m->path, O_RDONLY);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n;
	int err = -ENOEXEC;
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* Mappings start page-aligned, possibly before p_offset. */
			uint64_t pstart = ph.p_offset & ~0xfffULL;
			if (m->offset >= pstart && m->offset < ph.p_offset + ph.p_filesz) {
				*bias = m->start - (ph.p_vaddr - (ph.p_offset - m->offset));
				err = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

struct hframe {
	uint64_t pc;  /* runtime pc, or the error code for an error frame */
	int error;    /* an abort frame */
	struct known_file *file;
	uint64_t vaddr;
};

static const char *error_name(uint64_t code)
{
	switch (code) {
#define TREC_X(name, c, desc) case c: return #name;
		TREC_ERROR_LIST(TREC_X)
#undef TREC_X
	}
	return "?";
}

static int run_case(struct harness *h, const char *path)
{
	struct harness_case c;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int err = harness_case_read(path, &c);
	if (err) {
		printf("FAIL: harness %s: cannot read case: %s\n", name, strerror(-err));
		return -1;
	}
	h->cases++;

	/* Maps for this process: LPM entries and per-file biases. */
	struct harness_env *e = &h->env;
	e->num_lpm = 0;
	e->mem = c.mem;
	e->num_mem = c.num_mem;
	uint64_t *bias = calloc(c.num_maps + 1, sizeof(*bias));
	struct known_file **mf = calloc(c.num_maps + 1, sizeof(*mf));
	struct hframe *hf = calloc(TREC_MAX_FRAMES, sizeof(*hf));
	int ok = bias && mf && hf && harness_lpm_add_marker(e, c.pid) == 0;
	for (size_t i = 0; ok && i < c.num_maps; i++) {
		mf[i] = file_for(h, c.maps[i].path);
		if (!mf[i] || mapping_bias(&c.maps[i], &bias[i]) != 0)
			continue; /* unknown mapping: pcs in it stay unresolved */
		ok = harness_lpm_add_mapping(e, c.pid, c.maps[i].start, c.maps[i].end,
					     mf[i]->file_id, bias[i]) == 0;
	}
	if (!ok || harness_unwind(e, &c.regs, c.pid, c.tid) != 0) {
		printf("FAIL: harness %s: the program sent no trace\n", name);
		goto out;
	}

	/* Trace -> runtime pcs. */
	size_t nh = 0;
	int herr = 0;
	uint64_t herr_code = 0;
	for (unsigned i = 0; i < e->trace.num_frames && i < TREC_MAX_FRAMES; i++) {
		const struct trec_frame *fr = &e->trace.frames[i];
		struct hframe *x = &hf[nh];
		memset(x, 0, sizeof(*x));
		if (fr->flags & TREC_FRAME_F_ERROR) {
			herr = 1;
			herr_code = fr->addr_or_line;
			continue;
		}
		x->pc = fr->addr_or_line;
		x->vaddr = fr->addr_or_line;
		if (!(fr->flags & TREC_FRAME_F_ABSOLUTE)) {
			x->pc = ~0ULL;
			for (size_t m = 0; m < c.num_maps; m++)
				if (mf[m] && mf[m]->file_id == fr->file_id) {
					x->pc = fr->addr_or_line + bias[m];
					x->file = mf[m];
					break;
				}
		}
		nh++;
	}

	/* Verdict. */
	size_t ng = c.num_frames, n = nh < ng ? nh : ng, wrong = n;
	for (size_t i = 0; i < n && wrong == n; i++)
		if (hf[i].pc != c.frames[i].pc)
			wrong = i;
	const char *why = NULL;
	if (wrong < n)
		why = "wrong frame";
	else if (nh < ng) {
		int allowed = 0;
		for (size_t k = 0; nh > 0 && k < c.num_stop_in; k++)
			allowed |= strcmp(c.frames[nh - 1].name, c.stop_in[k]) == 0;
		if (!herr || !allowed)
			why = "stopped before gdb's outermost frame";
	} else if (nh > ng && c.gdb_outermost) {
		why = "frames beyond gdb's outermost frame";
	} else if (herr && c.gdb_outermost && c.num_stop_in == 0) {
		why = "error frame where gdb reached the outermost frame";
	}
	h->frames_compared += n;
	if (nh > ng)
		h->frames_unverified += nh - ng;
	if (!why) {
		h->passed++;
		printf("PASS: harness %s: %zu frames match gdb%s%s%s\n", name, n,
		       herr ? ", then " : "", herr ? error_name(herr_code) : "",
		       nh > ng ? " (more frames than gdb: unverified)" : "");
	} else {
		printf("FAIL: harness %s: %s\n", name, why);
	}
	if (why || h->verbose) {
		size_t rows = nh > ng ? nh : ng;
		for (size_t i = 0; i < rows; i++) {
			char hs[256] = "-", gs[256] = "-";
			if (i < nh)
				snprintf(hs, sizeof(hs), "%#lx %s", (unsigned long)hf[i].pc,
					 symbolize(hf[i].file, hf[i].vaddr));
			if (i < ng)
				snprintf(gs, sizeof(gs), "%#lx %s", (unsigned long)c.frames[i].pc,
					 c.frames[i].name);
			printf("  %3zu %s %-50s | gdb %s\n", i, i < n && hf[i].pc != c.frames[i].pc ? "!=" : "  ",
			       hs, gs);
		}
		if (herr)
			printf("      unwinder error: %s\n", error_name(herr_code));
		printf("      gdb stop: %s\n", c.gdb_outermost ? "outermost" : "other");
	}
out:
	free(bias);
	free(mf);
	free(hf);
	harness_case_free(&c);
	return 0;
}

/* The BPF lookup over the store's maps vs. the extraction, every address. */
static int lookup_file(struct harness *h, const char *path)
{
	struct trec_file_deltas d;
	uint64_t id = path_file_id(path);
	int err = trec_deltas_extract(path, &d);
	if (!err && d.num == 0)
		err = -ENODATA;
	if (!err)
		err = trec_delta_store_load(h->store, id, &d);
	if (err) {
		printf("FAIL: lookup %s: %s\n", path, strerror(-err));
		trec_file_deltas_free(&d);
		return -1;
	}
	uint64_t lo = d.entries[0].addr & ~TREC_DELTA_PAGE_MASK;
	uint64_t hi = (d.entries[d.num - 1].addr | TREC_DELTA_PAGE_MASK) + 1;
	size_t bad = 0;
	for (uint64_t a = lo; a < hi; a++) {
		uint16_t info = 0;
		int e = harness_stack_delta(&h->env, id, a, &info);
		struct resolved_rule want = source_rule(&d, a), got = { 0 };
		if (e) {
			got.command = 0xffff; /* never a valid rule */
		} else if (info & TREC_UNWIND_COMMAND) {
			got.command = info;
		} else {
			got.info = h->env.sink->infos[info];
		}
		if (!resolved_eq(&got, &want) && bad++ < 5)
			printf("  %#lx: BPF lookup gave %#x (error %d), extraction %#x\n", (unsigned long)a,
			       got.command, e, want.command);
	}
	/* Beyond the last page there must be no page entry at all. */
	uint16_t info;
	int after = harness_stack_delta(&h->env, id, hi, &info);
	if (bad == 0 && after == TREC_ERR_NATIVE_NO_PAGE_INFO)
		printf("PASS: lookup %s: BPF get_stack_delta agrees at all %lu addresses\n", path,
		       (unsigned long)(hi - lo));
	else
		printf("FAIL: lookup %s: %zu addresses disagree\n", path, bad);
	trec_file_deltas_free(&d);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct harness h = { 0 };
	int first = 1;
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		h.verbose = 1;
		first = 2;
	}
	if (argc <= first) {
		fprintf(stderr, "usage: %s [-v] CASE...\n", argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	h.env.sink = fake_sink_new(1 << 22);
	h.store = h.env.sink ? trec_delta_store_new(&fake_sink_ops, h.env.sink) : NULL;
	if (!h.store) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	int lookup = argc > 1 && strcmp(argv[1], "--lookup") == 0;
	int lookup_failed = 0;
	for (int i = lookup ? 2 : first; i < argc; i++) {
		if (lookup)
			lookup_failed |= lookup_file(&h, argv[i]) != 0;
		else
			run_case(&h, argv[i]);
	}
	if (lookup) {
		trec_delta_store_free(h.store);
		fake_sink_free(h.env.sink);
		return lookup_failed;
	}
	uint32_t deltas, infos, pages, files;
	trec_delta_store_usage(h.store, &deltas, &infos, &pages, &files);
	printf("harness: %zu/%zu cases agree with gdb, %zu frames compared, %zu unverified; "
	       "store: %u files, %u deltas, %u unwind infos, %u pages\n",
	       h.passed, h.cases, h.frames_compared, h.frames_unverified, files, deltas, infos, pages);
	for (size_t i = 0; i < h.num_files; i++) {
		free(h.files[i]->path);
		if (h.files[i]->dwfl)
			dwfl_end(h.files[i]->dwfl);
		free(h.files[i]);
	}
	free(h.files);
	free(h.env.lpm);
	trec_delta_store_free(h.store);
	fake_sink_free(h.env.sink);
	return h.passed == h.cases ? 0 : 1;
}
