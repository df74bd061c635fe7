// SPDX-License-Identifier: MIT
/*
 * .gopclntab against Go's own tools, on a program built now (skipped when
 * `go` is absent): function entries and names against `go tool nm` of the
 * unstripped build; function, file and line at thousands of pcs against
 * `go tool addr2line` of the stripped build (debug/gosym, Go's reader of
 * the same table); whole inline chains against the DWARF of the unstripped
 * build (read by treport's ELF source, libdw); and end to end: the archive
 * of the stripped binary, decoded by the report side, says the same.
 */
#include <errno.h>

#include "record/archive/archive.h"
#include "format/archive/archive_reader.h"
#include "gopclntab_testlib.h"
#include "gopclntab_dwarf.h"
#include "gopclntab_frames.h"
#include "report/symbols/symsrc.h"
#include "unit_check.h"


struct probe {
	uint64_t pc;
	int in_main;                    /* in a function of package main */
	char func[512], loc[1024];      /* go tool addr2line */
	unsigned n;                     /* our frames (gopclntab_lookup) */
	char fn[MAX_FRAMES][512], at[MAX_FRAMES][1024];
};

static struct probe *probes;
static size_t nprobes;

static void add_probe(uint64_t pc, int in_main)
{
	probes[nprobes++] = (struct probe){ .pc = pc, .in_main = in_main };
}

/* Every byte of package main's functions; 5 pcs of every other function. */
static void choose_pcs(struct gopclntab *g)
{
	size_t n = gopclntab_num_funcs(g), cap = 5 * n + 1;
	uint64_t seed = 12345;
	for (size_t i = 0; i < n; i++) {
		struct gopcln_func f;
		if (!gopclntab_func(g, i, &f) && f.name && !strncmp(f.name, "main.", 5))
			cap += f.end - f.entry;
	}
	probes = calloc(cap, sizeof(*probes));
	for (size_t i = 0; i < n; i++) {
		struct gopcln_func f;
		if (gopclntab_func(g, i, &f) || f.end <= f.entry)
			continue;
		uint64_t size = f.end - f.entry;
		if (f.name && !strncmp(f.name, "main.", 5)) {
			for (uint64_t k = 0; k < size; k++)
				add_probe(f.entry + k, 1);
			continue;
		}
		add_probe(f.entry, 0);
		add_probe(f.entry + size / 2, 0);
		add_probe(f.end - 1, 0);
		for (int r = 0; r < 2; r++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			add_probe(f.entry + (seed >> 33) % size, 0);
		}
	}
}

static void our_frames(struct gopclntab *g)
{
	for (size_t i = 0; i < nprobes; i++) {
		struct probe *p = &probes[i];
		struct gopcln_frame fr[MAX_FRAMES];
		int n = gopclntab_lookup(g, p->pc, fr, MAX_FRAMES);
		p->n = n > 0 ? (unsigned)n : 0;
		for (unsigned k = 0; k < p->n; k++) {
			go_norm_name(p->fn[k], sizeof(p->fn[k]), fr[k].function);
			go_loc(p->at[k], sizeof(p->at[k]), fr[k].file, fr[k].line);
		}
	}
}

/* go tool addr2line reads pcs on stdin, prints function then file:line. */
static int run_go_addr2line(const char *bin)
{
	char pcs[512], cmd[2048], line[4096];
	snprintf(pcs, sizeof(pcs), "%s.pcs", bin);
	FILE *f = fopen(pcs, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < nprobes; i++)
		fprintf(f, "%#llx\n", (unsigned long long)probes[i].pc);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "go tool addr2line '%s' < '%s'", bin, pcs);
	FILE *p = popen(cmd, "r");
	size_t i = 0, half = 0;
	while (p && i < nprobes && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!half) {
			go_norm_name(probes[i].func, sizeof(probes[i].func), line);
		} else {
			char *colon = strrchr(line, ':');
			long ln = colon ? strtol(colon + 1, NULL, 10) : 0;
			if (colon)
				*colon = 0;
			go_loc(probes[i].loc, sizeof(probes[i].loc), line, ln);
			i++;
		}
		half = !half;
	}
	return p && pclose(p) == 0 && i == nprobes ? 0 : -1;
}

/* addr2line names the function holding pc (the outermost frame) and the
 * innermost file:line; both must be ours. */
static void check_addr2line(void)
{
	size_t agree = 0, unknown = 0, in_main = 0;
	for (size_t i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];
		in_main += p->in_main;
		unknown += !strcmp(p->loc, "?");
		if (p->n && !strcmp(p->fn[p->n - 1], p->func) && !strcmp(p->at[0], p->loc))
			agree++;
		else if (agree + 5 > i)
			printf("  pc %#llx: go tool addr2line %s %s, ours %s %s\n",
			       (unsigned long long)p->pc, p->func, p->loc, p->n ? p->fn[p->n - 1] : "-",
			       p->n ? p->at[0] : "-");
	}
	char name[256];
	snprintf(name, sizeof(name),
		 "gopclntab: function and file:line at %zu pcs (%zu in package main, %zu in "
		 "padding) = go tool addr2line: %zu agree",
		 nprobes, in_main, unknown, agree);
	CHECK(name, agree == nprobes && in_main > 200);
}

/* Entries and names against go tool nm on the unstripped build. */
static void check_nm(struct gopclntab *g, const char *full)
{
	char cmd[1024], line[4096], name[512], ours[512];
	size_t listed = 0, agree = 0, n = gopclntab_num_funcs(g);
	snprintf(cmd, sizeof(cmd), "go tool nm -n '%s'", full);
	FILE *p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long addr;
		char type;
		int off = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, " %llx %c %n", &addr, &type, &off) < 2 || !off ||
		    (type != 'T' && type != 't') || !strcmp(line + off, "runtime.text") ||
		    !strcmp(line + off, "runtime.etext"))
			continue;
		listed++;
		long i = gopclntab_find(g, addr);
		struct gopcln_func f;
		go_norm_name(name, sizeof(name), line + off);
		if (i >= 0 && !gopclntab_func(g, (size_t)i, &f) && f.entry == addr) {
			go_norm_name(ours, sizeof(ours), f.name);
			if (!strcmp(ours, name))
				agree++;
			else if (listed - agree < 5)
				printf("  %#llx: nm %s, ours %s\n", addr, name, ours);
		}
	}
	int ok = p && pclose(p) == 0;
	char label[256];
	snprintf(label, sizeof(label),
		 "gopclntab: %zu functions, entries and names = go tool nm's %zu: %zu agree", n,
		 listed, agree);
	CHECK(label, ok && listed == n && agree == n);
}

/* Go's DWARF leaves out calls inlined into autogenerated wrappers: there
 * it shows the wrapper at the callee's line, one frame less than ours. */
static int wrapper_only(const struct probe *p, char (*fn)[512], char (*at)[1024], unsigned n)
{
	if (!n || p->n != n + 1 || !strstr(p->at[n], "<autogenerated>") ||
	    strcmp(fn[n - 1], p->fn[n]) || strcmp(at[n - 1], p->at[n - 1]))
		return 0;
	for (unsigned k = 0; k + 1 < n; k++)
		if (strcmp(fn[k], p->fn[k]) || strcmp(at[k], p->at[k]))
			return 0;
	return 1;
}

static void check_dwarf_inlines(const char *full)
{
	struct dwarf_oracle o;
	size_t same = 0, wrappers = 0, inlined = 0, differ = 0;
	if (dwarf_oracle_open(&o, full)) {
		CHECK("gopclntab: DWARF of the unstripped build opens", 0);
		dwarf_oracle_close(&o);
		return;
	}
	for (size_t i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];
		char fn[MAX_FRAMES][512], at[MAX_FRAMES][1024];
		unsigned n = dwarf_frames(&o, p->pc, fn, at);
		if (!strcmp(p->loc, "?"))
			continue; /* padding between functions: no line either way */
		int eq = n == p->n;
		for (unsigned k = 0; eq && k < n; k++)
			eq = !strcmp(fn[k], p->fn[k]) && !strcmp(at[k], p->at[k]);
		inlined += p->n > 1;
		if (eq)
			same++;
		else if (wrapper_only(p, fn, at, n))
			wrappers++;
		else if (differ++ < 5)
			printf("  pc %#llx: DWARF %s at %s (%u frames), ours %s at %s (%u frames)\n",
			       (unsigned long long)p->pc, n ? fn[0] : "-", n ? at[0] : "-", n,
			       p->n ? p->fn[0] : "-", p->n ? p->at[0] : "-", p->n);
	}
	dwarf_oracle_close(&o);
	char name[300];
	snprintf(name, sizeof(name),
		 "gopclntab: whole inline chains = DWARF's: %zu same, %zu where only ours shows "
		 "a call inlined into a wrapper, %zu differ (%zu pcs with inlined frames)",
		 same, wrappers, differ, inlined);
	CHECK(name, differ == 0 && inlined > 300 && same > 1000);
}

/* ---- end to end: archive, then the report side's lookup ------------------ */

static struct trec_archive *archive_of(const char *path, int level, const uint64_t *addrs,
				       size_t naddrs, struct trec_archive_stats *st)
{
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct trec_archive *a = NULL;
	char err[256];
	int rc = level == TREC_ARCHIVE_SAMPLED
			 ? trec_archive_build_sampled(path, NULL, 0, addrs, naddrs, &bytes, &len, st)
			 : trec_archive_build(path, NULL, 0, level, &bytes, &len, st);
	if (!rc && trec_archive_parse(bytes, len, &a, err, sizeof(err)))
		a = NULL;
	free(bytes);
	return a;
}

/* The archive's frames at probe p are ours, frame by frame. */
static int archive_agrees(const struct trec_archive *a, const struct probe *p)
{
	struct trec_arc_result r;
	char fn[512], at[1024];
	trec_archive_lookup(a, p->pc, &r);
	if (!r.symbol) /* .symtab's sizes stop short of the padding */
		return p->n == 0 || (p->n == 1 && !strcmp(p->at[0], "?"));
	if (r.num_frames != p->n)
		return 0;
	for (unsigned k = 0; k < r.num_frames; k++) {
		go_norm_name(fn, sizeof(fn), r.frames[k].function);
		go_loc(at, sizeof(at), r.frames[k].file, r.frames[k].line);
		if (strcmp(fn, p->fn[k]) || strcmp(at, p->at[k]))
			return 0;
	}
	return 1;
}

static void check_archive(const char *path, const char *label, uint32_t want_sources)
{
	struct trec_archive_stats st;
	struct trec_archive *a = archive_of(path, TREC_ARCHIVE_FULL, NULL, 0, &st);
	size_t agree = 0;
	for (size_t i = 0; a && i < nprobes; i++)
		agree += archive_agrees(a, &probes[i]);
	char name[300];
	snprintf(name, sizeof(name),
		 "gopclntab: %s archive (level full, %u symbols, %u rows, %u inlined ranges, "
		 "sources %#x) looked up by treport = ours at %zu of %zu pcs",
		 label, st.symbols, st.lines, st.inlines, st.sources, agree, nprobes);
	CHECK(name, a && agree == nprobes && (st.sources & want_sources) == want_sources &&
			    st.lines > 1000 && st.inlines > 100);
	trec_archive_free(a);
}

/* Level sampled keeps lines and inlined calls of the functions holding the
 * sampled pcs (here: package main's) and no others; of the other symbols
 * only those near a sampled pc (their lookup window) stay, bare. */
static void check_sampled(const char *path)
{
	uint64_t *addrs = malloc((nprobes + 1) * sizeof(*addrs));
	size_t n = 0, agree = 0, outside = 0, outside_bare = 0, outside_lines = 0;
	for (size_t i = 0; i < nprobes; i++)
		if (probes[i].in_main)
			addrs[n++] = probes[i].pc;
	struct trec_archive_stats st, full;
	struct trec_archive *a = archive_of(path, TREC_ARCHIVE_SAMPLED, addrs, n, &st);
	trec_archive_free(archive_of(path, TREC_ARCHIVE_FULL, NULL, 0, &full));
	for (size_t i = 0; a && i < nprobes; i++) {
		if (probes[i].in_main) {
			agree += archive_agrees(a, &probes[i]);
			continue;
		}
		struct trec_arc_result r;
		trec_archive_lookup(a, probes[i].pc, &r);
		outside++;
		outside_bare += r.symbol && !r.frames[0].file && r.num_frames == 1;
		outside_lines += r.symbol && (r.frames[0].file || r.num_frames > 1);
	}
	char name[300];
	snprintf(name, sizeof(name),
		 "gopclntab: level sampled on package main (%zu pcs): %zu agree; of %zu other "
		 "pcs %zu named without lines, %zu with lines; %llu bytes vs %llu at level full",
		 n, agree, outside, outside_bare, outside_lines, (unsigned long long)st.bytes,
		 (unsigned long long)full.bytes);
	CHECK(name, a && agree == n && outside_lines == 0 && st.bytes * 4 < full.bytes);
	trec_archive_free(a);
	free(addrs);
}

/* treport without an embedded archive: its local ELF source falls back to
 * the table in the Go text. */
static void check_local_source(const char *path, const char *label)
{
	struct rp_symsrc_file f = { .file_id = 1, .path = path, .debuglink = "" };
	void *h = NULL;
	char why[512], fn[512], at[1024];
	size_t agree = 0;
	int rc = rp_symsrc_elf_file.open(&f, &h, why, sizeof(why));
	for (size_t i = 0; !rc && i < nprobes; i++) {
		const struct probe *p = &probes[i];
		struct rp_symres r;
		int eq = !rp_symsrc_elf_file.lookup(h, p->pc, &r) && r.nlines == p->n && r.symname;
		for (unsigned k = 0; eq && k < r.nlines; k++) {
			go_norm_name(fn, sizeof(fn), r.lines[k].func);
			go_loc(at, sizeof(at), r.lines[k].file, r.lines[k].line);
			eq = !strcmp(fn, p->fn[k]) && !strcmp(at, p->at[k]);
		}
		agree += eq;
	}
	if (!rc)
		rp_symsrc_elf_file.close(h);
	char name[200];
	snprintf(name, sizeof(name),
		 "gopclntab: treport's local source on the %s build = ours at %zu of %zu pcs", label,
		 agree, nprobes);
	CHECK(name, !rc && agree == nprobes);
}

/* The stripped build with its section headers removed (as sstrip does):
 * the table is found by its header in the read-only segment. */
static void check_no_sections(const char *stripped, const char *dir)
{
	char path[512], cmd[2400];
	struct go_table a = { .fd = -1 }, b = { .fd = -1 };
	snprintf(path, sizeof(path), "%s/noshdr", dir);
	/* e_shoff (8 bytes at 40), e_shnum and e_shstrndx (2 bytes at 60, 62) */
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' '%s' && printf '\\0\\0\\0\\0\\0\\0\\0\\0' | dd of='%s' bs=1 seek=40 "
		 "conv=notrunc status=none && printf '\\0\\0\\0\\0' | dd of='%s' bs=1 seek=60 "
		 "conv=notrunc status=none",
		 stripped, path, path, path);
	int ok = !system(cmd) && !go_table_open(&a, path) && !go_table_open(&b, stripped);
	size_t n = ok ? gopclntab_num_funcs(a.g) : 0, same = 0;
	for (size_t i = 0; ok && i < n; i++) {
		struct gopcln_func x, y;
		same += !gopclntab_func(a.g, i, &x) && !gopclntab_func(b.g, i, &y) &&
			x.entry == y.entry && x.name && y.name && !strcmp(x.name, y.name);
	}
	char name[200];
	snprintf(name, sizeof(name),
		 "gopclntab: without section headers the table is found by its header: %zu of %zu "
		 "functions as with them",
		 same, ok ? gopclntab_num_funcs(b.g) : 0);
	CHECK(name, ok && n > 1000 && same == n && n == gopclntab_num_funcs(b.g));
	go_table_close(&a);
	go_table_close(&b);
}

/* The stripped PIE: its table sits in .data.rel.ro.gopclntab. */
static void check_pie(const char *pie)
{
	struct go_table t;
	int rc = go_table_open(&t, pie);
	size_t named = 0, n = rc ? 0 : gopclntab_num_funcs(t.g);
	for (size_t i = 0; i < n; i++) {
		struct gopcln_func f;
		named += !gopclntab_func(t.g, i, &f) && f.name;
	}
	char name[200];
	snprintf(name, sizeof(name), "gopclntab: stripped PIE parses, %zu of %zu functions named",
		 named, n);
	CHECK(name, !rc && n > 1000 && named == n && gopclntab_has_inline_trees(t.g));
	go_table_close(&t);
}

static void count_line(void *ctx, uint64_t addr, const char *file, uint32_t line)
{
	*(size_t *)ctx += addr + line + (file ? strlen(file) : 0) > 0;
}

static void count_inlined(void *ctx, unsigned depth, uint64_t lo, uint64_t hi, const char *name,
			  const char *call_file, uint32_t call_line)
{
	*(size_t *)ctx += depth + strlen(name) + (call_file ? strlen(call_file) : 0) + call_line +
				  (hi - lo) > 0;
}

/* The stripped binary with bytes of its table changed, read from memory
 * (elf_memory): every copy must parse or fail cleanly, and what parses
 * must walk (and archive) without breaking a bound. Runs under ASan. */
static void check_damaged(const char *path)
{
	FILE *f = fopen(path, "rb");
	long size = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
	uint8_t *orig = size > 0 ? malloc((size_t)size) : NULL;
	int ok = orig && !fseek(f, 0, SEEK_SET) && fread(orig, 1, (size_t)size, f) == (size_t)size;
	struct go_table t;
	uint64_t lo = 0, hi = 0, seed = 42;
	size_t parsed = 0, refused = 0, rounds = 60;
	if (f)
		fclose(f);
	/* Where the table is in the file: its section. */
	if (ok && !go_table_open(&t, path)) {
		GElf_Shdr sh;
		Elf_Scn *scn = NULL;
		size_t shstr;
		elf_getshdrstrndx(t.elf, &shstr);
		while ((scn = elf_nextscn(t.elf, scn)))
			if (gelf_getshdr(scn, &sh) &&
			    !strcmp(elf_strptr(t.elf, shstr, sh.sh_name), ".gopclntab"))
				lo = sh.sh_offset, hi = sh.sh_offset + sh.sh_size;
	}
	go_table_close(&t);
	uint8_t *copy = ok && hi > lo ? malloc((size_t)size) : NULL;
	for (size_t r = 0; copy && r < rounds; r++) {
		memcpy(copy, orig, (size_t)size);
		for (int c = 0; c < 1 + (int)(r % 8); c++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* the header and functab often, anywhere else too */
			uint64_t span = r % 3 ? hi - lo : 4096;
			copy[lo + (seed >> 11) % span] = (uint8_t)(seed >> 48);
		}
		Elf *e = elf_memory((char *)copy, (size_t)size);
		struct gopclntab *g = NULL;
		if (e && !gopclntab_open_elf(e, &g)) {
			size_t n = gopclntab_num_funcs(g);
			size_t seen = 0;
			const struct gopcln_visitor v = { .ctx = &seen, .line = count_line,
							  .inlined = count_inlined };
			for (size_t i = 0; i < n; i++) {
				struct gopcln_frame fr[MAX_FRAMES];
				struct gopcln_func fn;
				gopclntab_walk_func(g, i, &v);
				if (!gopclntab_func(g, i, &fn))
					gopclntab_lookup(g, fn.entry + (fn.end - fn.entry) / 2, fr,
							 MAX_FRAMES);
			}
			parsed++;
		} else {
			refused++;
		}
		gopclntab_free(g);
		if (e)
			elf_end(e);
	}
	char name[200];
	snprintf(name, sizeof(name),
		 "gopclntab: %zu copies of the stripped build with table bytes changed: %zu "
		 "parsed and walked, %zu refused, none crashed",
		 rounds, parsed, refused);
	CHECK(name, copy && parsed + refused == rounds);
	free(copy);
	free(orig);
}

int main(void)
{
	struct go_build b;
	struct go_table t;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!have_go()) {
		printf("SKIP: go is not installed (apt-get install golang-go)\n");
		return 77;
	}
	if (go_build_all(&b)) {
		CHECK("gopclntab: go build of the test program", 0);
		go_build_clean(&b);
		return 1;
	}
	int rc = go_table_open(&t, b.stripped);
	char name[200];
	snprintf(name, sizeof(name), "gopclntab: stripped build parses (layout %d, %zu functions)",
		 rc ? 0 : gopclntab_layout(t.g), rc ? 0 : gopclntab_num_funcs(t.g));
	CHECK(name, !rc && gopclntab_num_funcs(t.g) > 1000 && gopclntab_has_inline_trees(t.g));
	if (!rc) {
		check_nm(t.g, b.full);
		choose_pcs(t.g);
		our_frames(t.g);
		CHECK("gopclntab: go tool addr2line runs", !run_go_addr2line(b.stripped));
		check_addr2line();
		check_dwarf_inlines(b.full);
		check_frameless(t.g, b.full);
		check_frame_rows(t.g, b.full);
		check_archive(b.stripped, "stripped", TREC_ARC_SRC_GOPCLNTAB);
		check_archive(b.full, "unstripped",
			      TREC_ARC_SRC_GOPCLNTAB | TREC_ARC_SRC_SYMTAB | TREC_ARC_SRC_DWARF);
		check_sampled(b.stripped);
		check_local_source(b.stripped, "stripped");
		check_local_source(b.full, "unstripped");
		check_pie(b.pie);
		check_no_sections(b.stripped, b.dir);
		check_damaged(b.stripped);
	}
	go_table_close(&t);
	free(probes);
	go_build_clean(&b);
	return failures ? 1 : 0;
}
