// SPDX-License-Identifier: MIT
/*
 * Symbol archives: build -> encode -> parse gives back the same tables, and
 * lookups agree with `addr2line -f -i` (binutils reads the same DWARF
 * independently) for many addresses of the test workloads and of libc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "record/archive/archive.h"       /* record/: encoder */
#include "record/archive/archive_build.h"
#include "archive_testlib.h"
#include "format/archive/archive_reader.h"

static int failures;

static void result(int ok, const char *fmt, const char *arg)
{
	printf("%s: ", ok ? "PASS" : "FAIL");
	printf(fmt, arg);
	printf("\n");
	if (!ok)
		failures++;
}

static int same_segments(const struct trec_arc_tables *a, const struct trec_arc_tables *b)
{
	for (size_t i = 0; i < a->num_segments; i++) {
		const struct trec_arc_segment *x = &a->segments[i], *y = &b->segments[i];
		if (x->flags != y->flags || x->vaddr != y->vaddr || x->memsz != y->memsz ||
		    x->align != y->align)
			return 0;
	}
	return 1;
}

static int same_tables(const struct trec_arc_tables *a, const struct trec_arc_tables *b)
{
	if (a->e_machine != b->e_machine || a->elf_class != b->elf_class ||
	    a->e_type != b->e_type || a->sources != b->sources || a->level != b->level ||
	    a->load_vaddr != b->load_vaddr || a->entry != b->entry ||
	    a->num_sections != b->num_sections || a->num_segments != b->num_segments ||
	    (a->num_sections && memcmp(a->sections, b->sections,
				       a->num_sections * sizeof(*a->sections))) ||
	    !same_segments(a, b) ||
	    a->build_id_len != b->build_id_len ||
	    memcmp(a->build_id, b->build_id, a->build_id_len) ||
	    a->num_strings != b->num_strings || a->num_syms != b->num_syms ||
	    a->num_lines != b->num_lines || a->num_depths != b->num_depths)
		return 0;
	for (size_t i = 0; i < a->num_strings; i++)
		if (strcmp(a->strings[i], b->strings[i]))
			return 0;
	for (size_t i = 0; i < a->num_syms; i++)
		if (a->syms[i].addr != b->syms[i].addr || a->syms[i].size != b->syms[i].size ||
		    a->syms[i].name != b->syms[i].name || a->syms[i].bind != b->syms[i].bind)
			return 0;
	if (a->num_lines && memcmp(a->lines, b->lines, a->num_lines * sizeof(*a->lines)))
		return 0;
	for (size_t d = 0; d < a->num_depths; d++) {
		if (a->depths[d].num != b->depths[d].num)
			return 0;
		for (size_t i = 0; i < a->depths[d].num; i++) {
			const struct trec_arc_inline *x = &a->depths[d].v[i], *y = &b->depths[d].v[i];
			if (x->lo != y->lo || x->hi != y->hi || x->name != y->name ||
			    x->call_file != y->call_file || x->call_line != y->call_line)
				return 0;
		}
	}
	return 1;
}

/* Collect, encode, parse, compare. Returns the parsed archive (or NULL). */
static struct trec_archive *round_trip(const char *path, int level, const char *label)
{
	struct arc_builder b = { 0 };
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct trec_archive *a = NULL;
	char err[256];
	int ok = !arc_collect(&b, path, NULL, 0, level, NULL, 0) && !arc_finalize(&b) &&
		 !trec_archive_encode(&b.t, &bytes, &len) &&
		 !trec_archive_parse(bytes, len, &a, err, sizeof(err)) &&
		 same_tables(&b.t, trec_archive_tables(a)) && b.t.num_syms > 0 &&
		 (level < TREC_ARCHIVE_FULL || b.t.num_lines > 0);
	char name[512];
	snprintf(name, sizeof(name), "%s level %s round trip (%zu bytes)", label,
		 trec_archive_level_name(level), len);
	result(ok, "archive %s", name);
	free(bytes);
	arc_builder_free(&b);
	if (!ok) {
		trec_archive_free(a);
		return NULL;
	}
	return a;
}

/* ---- agreement with addr2line ---------------------------------------------- */

/* Every function symbol of a file, aliases included: addr2line may name an
 * address by another alias than the one the archive keeps. */
struct alias_list {
	size_t n;
	struct alias { uint64_t addr; char *name; } *v;
};

static int cmp_alias(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_aliases(struct alias_list *al, const char *path)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl ? dwfl_report_elf(dwfl, "x", path, -1, 0, true) : NULL;
	int n = mod ? dwfl_module_getsymtab(mod) : 0;
	al->v = calloc(n > 0 ? (size_t)n : 1, sizeof(*al->v));
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			al->v[al->n++] = (struct alias){ addr, strdup(name) };
	}
	qsort(al->v, al->n, sizeof(*al->v), cmp_alias);
	if (dwfl)
		dwfl_end(dwfl);
}

static void free_aliases(struct alias_list *al)
{
	for (size_t i = 0; i < al->n; i++)
		free(al->v[i].name);
	free(al->v);
}

static int is_alias(const struct alias_list *al, uint64_t addr, const char *name)
{
	struct alias key = { .addr = addr };
	struct alias *hit = bsearch(&key, al->v, al->n, sizeof(*al->v), cmp_alias);
	if (!hit)
		return 0;
	while (hit > al->v && hit[-1].addr == addr)
		hit--;
	for (; hit < al->v + al->n && hit->addr == addr; hit++)
		if (!strncmp(hit->name, name, strlen(name)) &&
		    (!hit->name[strlen(name)] || hit->name[strlen(name)] == '@'))
			return 1;
	return 0;
}

/* addr2line shows the DWARF name; symbols of GCC clones carry a suffix. */
static void base_name(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%.*s", (int)n - 1, s ? s : "??");
	char *dot = strchr(dst, '.');
	if (dot && dot != dst)
		*dot = 0;
}

/* Our location as addr2line prints it, minus discriminators. */
static void our_loc(char *dst, size_t n, const struct trec_arc_frame *f)
{
	if (f->file && f->line)
		snprintf(dst, n, "%s:%u", f->file, f->line);
	else if (f->file)
		snprintf(dst, n, "%s:?", f->file);
	else
		snprintf(dst, n, "??:?");
}

static void their_loc(char *dst, size_t n, const char *loc)
{
	snprintf(dst, n, "%.*s", (int)n - 1, loc);
	char *disc = strstr(dst, " (discriminator");
	if (disc)
		*disc = 0;
	/* addr2line prints line 0 as "file:0"; the archive keeps it unknown. */
	size_t tl = strlen(dst);
	if (tl > 2 && !strcmp(dst + tl - 2, ":0"))
		strcpy(dst + tl - 1, "?");
}

/* One "<prefix><address>" line per address into a new temporary file. */
static int write_addrs(char *tmpl, const char *prefix, const uint64_t *addrs, size_t n)
{
	int fd = mkstemp(tmpl);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return -1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%#llx\n", prefix, (unsigned long long)addrs[i]);
	return fclose(f);
}

struct a2l_block {
	size_t n;
	char func[TREC_ARC_MAX_DEPTH + 1][512];
	char loc[TREC_ARC_MAX_DEPTH + 1][1024];
};

/* Runs addr2line once for all addresses; blocks[i] holds addrs[i]'s frames. */
static int run_addr2line(const char *path, const uint64_t *addrs, size_t n,
			 struct a2l_block *blocks)
{
	char tmpl[] = "/tmp/trec-arc-a2l.XXXXXX", cmd[8192], line[4096];
	if (write_addrs(tmpl, "", addrs, n))
		return -1;
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -a -e '%s' < %s", path, tmpl);
	FILE *p = popen(cmd, "r");
	size_t idx = 0, half = 0;
	struct a2l_block *b = NULL;
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!half && !strncmp(line, "0x", 2)) {
			b = idx < n ? &blocks[idx++] : NULL;
			continue;
		}
		if (!b || b->n > TREC_ARC_MAX_DEPTH)
			break;
		if (!half)
			snprintf(b->func[b->n], sizeof(b->func[0]), "%.*s",
				 (int)sizeof(b->func[0]) - 1, line);
		else
			their_loc(b->loc[b->n++], sizeof(b->loc[0]), line);
		half = !half;
	}
	int rc = p && pclose(p) == 0 && idx == n ? 0 : -1;
	unlink(tmpl);
	return rc;
}

enum verdict { AGREE, FILE_ONLY, DISAGREE };

static enum verdict compare_block(const struct trec_arc_result *r, const struct a2l_block *b,
				  const struct alias_list *al)
{
	enum verdict v = AGREE;
	if (b->n != r->num_frames)
		return DISAGREE;
	for (size_t i = 0; i < b->n; i++) {
		const struct trec_arc_frame *f = &r->frames[i];
		char x[1024], y[1024], loc[1100];
		base_name(x, sizeof(x), f->function);
		base_name(y, sizeof(y), b->func[i]);
		if (strcmp(x, y) && !(f->function == r->symbol && is_alias(al, r->sym_addr, y)))
			return DISAGREE;
		our_loc(loc, sizeof(loc), f);
		if (!strcmp(loc, b->loc[i]))
			continue;
		/* Same line, other file: binutils 2.40 names the CU's main file
		 * for lines of #included files in DWARF 5; gdb settles it. */
		const char *ol = strrchr(loc, ':'), *tl = strrchr(b->loc[i], ':');
		if (i == 0 && ol && tl && !strcmp(ol, tl))
			v = FILE_ONLY;
		else
			return DISAGREE;
	}
	return v;
}

/* Asks gdb for the line of each address; 1 where gdb agrees with us. */
static void gdb_confirm(const char *path, const uint64_t *addrs, size_t n,
			const struct trec_arc_result *rs, int *ok)
{
	char tmpl[] = "/tmp/trec-arc-gdb.XXXXXX", cmd[8192], line[4096];
	if (write_addrs(tmpl, "info line *", addrs, n))
		return;
	snprintf(cmd, sizeof(cmd), "gdb -nx -batch -x %s '%s' 2>/dev/null", tmpl, path);
	FILE *p = popen(cmd, "r");
	size_t i = 0;
	while (p && i < n && fgets(line, sizeof(line), p)) {
		unsigned ln;
		char file[2048];
		if (!strncmp(line, "No line number", 14)) {
			ok[i++] = 0;
			continue;
		}
		if (sscanf(line, "Line %u of \"%2047[^\"]\"", &ln, file) != 2)
			continue;
		const char *ours = rs[i].frames[0].file;
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		const char *obase = ours && strrchr(ours, '/') ? strrchr(ours, '/') + 1 : ours;
		ok[i] = ln == rs[i].frames[0].line && obase && !strcmp(base, obase);
		i++;
	}
	if (p)
		pclose(p);
	unlink(tmpl);
}

/* Compares lookups with addr2line; returns how many addresses disagree. */
static size_t compare_addr2line(const struct trec_archive *a, const char *path,
				const uint64_t *addrs, size_t n, size_t *settled_by_gdb)
{
	struct alias_list al = { 0 };
	struct a2l_block *blocks = calloc(n, sizeof(*blocks));
	struct trec_arc_result *rs = calloc(n, sizeof(*rs));
	uint64_t *sus = calloc(n, sizeof(*sus));
	struct trec_arc_result *sus_r = calloc(n, sizeof(*sus_r));
	int *ok = calloc(n, sizeof(*ok));
	size_t bad = 0, nsus = 0, shown = 0;

	*settled_by_gdb = 0;
	load_aliases(&al, path);
	if (run_addr2line(path, addrs, n, blocks)) {
		bad = n;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		trec_archive_lookup(a, addrs[i], &rs[i]);
		enum verdict v = compare_block(&rs[i], &blocks[i], &al);
		if (v == FILE_ONLY) {
			sus_r[nsus] = rs[i];
			sus[nsus++] = addrs[i];
		} else if (v == DISAGREE) {
			bad++;
			if (shown++ < 8)
				fprintf(stderr, "  %#llx: ours %s %s:%u (%u frames), addr2line %s %s (%zu)\n",
					(unsigned long long)addrs[i],
					rs[i].frames[0].function ? rs[i].frames[0].function : "??",
					rs[i].frames[0].file ? rs[i].frames[0].file : "??",
					rs[i].frames[0].line, rs[i].num_frames, blocks[i].func[0],
					blocks[i].loc[0], blocks[i].n);
		}
	}
	if (nsus)
		gdb_confirm(path, sus, nsus, sus_r, ok);
	for (size_t i = 0; i < nsus; i++) {
		if (ok[i]) {
			(*settled_by_gdb)++;
		} else {
			bad++;
			fprintf(stderr, "  %#llx: file differs from addr2line and gdb\n",
				(unsigned long long)sus[i]);
		}
	}
out:
	free_aliases(&al);
	free(blocks);
	free(rs);
	free(sus);
	free(sus_r);
	free(ok);
	return bad;
}

/* Addresses to check: every line row and the middle of its range, thinned
 * to at most max, only inside symbols (addr2line -f needs one). */
static size_t pick_addrs(const struct trec_archive *a, uint64_t *out, size_t max)
{
	const struct trec_arc_tables *t = trec_archive_tables(a);
	size_t n = 0, step = t->num_lines * 2 / max + 1;
	uint64_t off;
	for (size_t i = 0; i + 1 < t->num_lines && n < max; i += step) {
		const struct trec_arc_line *l = &t->lines[i];
		if (!l->file)
			continue;
		uint64_t cand[2] = { l->addr, l->addr + (t->lines[i + 1].addr - l->addr) / 2 };
		for (int k = 0; k < 2 && n < max; k++)
			if (trec_archive_symbol(a, cand[k], &off))
				out[n++] = cand[k];
	}
	return n;
}

static void check_addr2line(const struct trec_archive *a, const char *path, const char *label,
			    size_t max, double max_bad_ratio)
{
	uint64_t *addrs = calloc(max, sizeof(*addrs));
	size_t n = pick_addrs(a, addrs, max), by_gdb = 0;
	size_t bad = compare_addr2line(a, path, addrs, n, &by_gdb);
	char name[256];
	snprintf(name, sizeof(name), "%s: %zu of %zu addresses disagree, %zu settled by gdb",
		 label, bad, n, by_gdb);
	result(n >= 20 && bad <= max_bad_ratio * (double)n,
	       "archive lookup agrees with addr2line -f -i on %s", name);
	free(addrs);
}

/* The inline chain of the inlines workload: hot <- mid <- outer. */
static void check_inline_chain(const struct trec_archive *a)
{
	const struct trec_arc_tables *t = trec_archive_tables(a);
	int found = 0;
	for (size_t i = 0; i < t->num_lines && !found; i++) {
		struct trec_arc_result r;
		trec_archive_lookup(a, t->lines[i].addr, &r);
		found = r.num_frames == 3 && r.frames[0].function &&
			!strcmp(r.frames[0].function, "hot") && r.frames[1].function &&
			!strcmp(r.frames[1].function, "mid") && r.symbol &&
			!strcmp(r.frames[2].function, "outer") && r.frames[2].line > 0;
	}
	result(found, "archive %s", "inlines: an address resolves to hot <- mid <- outer");
}

static int same_result(const struct trec_arc_result *x, const struct trec_arc_result *y)
{
	if (x->symbol != y->symbol && (!x->symbol || !y->symbol || strcmp(x->symbol, y->symbol)))
		return 0;
	if (x->num_frames != y->num_frames || x->offset != y->offset)
		return 0;
	for (unsigned i = 0; i < x->num_frames; i++) {
		const struct trec_arc_frame *a = &x->frames[i], *b = &y->frames[i];
		if (a->line != b->line || !a->function != !b->function ||
		    (a->function && strcmp(a->function, b->function)) || !a->file != !b->file ||
		    (a->file && strcmp(a->file, b->file)))
			return 0;
	}
	return 1;
}

/* Level sampled answers like full inside the sampled functions and at the
 * sampled addresses, keeps only the symbols that can name those (at most
 * the lookup window of each), and knows no lines elsewhere. */
static void check_sampled(const struct trec_archive *full, const char *path, const char *label)
{
	const struct trec_arc_tables *t = trec_archive_tables(full);
	uint64_t addrs[64];
	size_t n = 0;
	for (size_t i = 0; i < t->num_lines && n < 64; i += t->num_lines / 64 + 1)
		if (t->lines[i].file)
			addrs[n++] = t->lines[i].addr + 1;
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct trec_archive_stats st;
	struct trec_archive *s = NULL;
	int ok = n > 0 && !trec_archive_build_sampled(path, NULL, 0, addrs, n, &bytes, &len, &st) &&
		 !trec_archive_parse(bytes, len, &s, NULL, 0) &&
		 trec_archive_tables(s)->num_syms <= n * TREC_ARC_ENCLOSING_SCAN &&
		 trec_archive_tables(s)->level == TREC_ARCHIVE_SAMPLED;
	size_t same = 0, inside = 0, outside_clean = 0, outside = 0, at_addrs = 0;
	for (size_t k = 0; ok && k < n; k++) {
		struct trec_arc_result x, y;
		trec_archive_lookup(full, addrs[k], &x);
		trec_archive_lookup(s, addrs[k], &y);
		at_addrs += same_result(&x, &y);
	}
	for (size_t i = 0; ok && i < t->num_lines; i += 7) {
		uint64_t a = t->lines[i].addr, off;
		const struct trec_arc_sym *sym = trec_archive_symbol(full, a, &off);
		int sampled = 0;
		for (size_t k = 0; sym && k < n; k++)
			sampled |= addrs[k] - sym->addr < sym->size;
		struct trec_arc_result x, y;
		trec_archive_lookup(full, a, &x);
		trec_archive_lookup(s, a, &y);
		if (sampled) {
			inside++;
			same += same_result(&x, &y);
		} else if (sym) {
			outside++;
			/* no lines; a symbol only if its window reaches here */
			outside_clean += !y.num_frames || (y.num_frames == 1 && !y.frames[0].file);
		}
	}
	char name[256];
	snprintf(name, sizeof(name),
		 "%s level sampled (%zu bytes, %zu of %zu symbols, for %zu addresses): %zu/%zu "
		 "sampled addresses and %zu/%zu lookups inside sampled functions as full, "
		 "%zu/%zu outside without lines", label, len,
		 s ? trec_archive_tables(s)->num_syms : 0, t->num_syms, n, at_addrs, n, same, inside,
		 outside_clean, outside);
	result(ok && inside > 0 && same == inside && at_addrs == n && outside_clean == outside,
	       "archive %s", name);
	free(bytes);
	trec_archive_free(s);
}

/* MiniDebugInfo: a stripped copy of busy whose local function symbols live
 * only in an xz-compressed .gnu_debugdata (as Fedora ships binaries). */
static void check_minidebuginfo(void)
{
	char dir[] = "/tmp/trec-arc-mini.XXXXXX", cmd[16384], path[4200];
	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cp '%s' busy && "
		 "nm busy --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' > keep && "
		 "objcopy --only-keep-debug busy dbg && "
		 "objcopy -S --remove-section .gdb_index --remove-section .comment "
		 "--keep-symbols=keep dbg mini && xz -f mini && strip --strip-all busy && "
		 "objcopy --add-section .gnu_debugdata=mini.xz busy", dir, workload("busy"));
	snprintf(path, sizeof(path), "%s/busy", dir);
	if (system(cmd)) {
		printf("SKIP: archive MiniDebugInfo (objcopy/xz failed)\n");
		goto out;
	}
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct trec_archive_stats st;
	struct trec_archive *a = NULL;
	int ok = !trec_archive_build(path, NULL, 0, TREC_ARCHIVE_FULL, &bytes, &len, &st) &&
		 !trec_archive_parse(bytes, len, &a, NULL, 0) &&
		 (st.sources & TREC_ARC_SRC_MINIDEBUG);
	int found = 0;
	for (size_t i = 0; ok && i < trec_archive_tables(a)->num_syms; i++)
		found |= !strcmp(trec_archive_tables(a)->strings[trec_archive_tables(a)->syms[i].name],
				 "cmp_ints");
	result(ok && found, "archive %s",
	       "MiniDebugInfo: a static function of a stripped binary comes from .gnu_debugdata");
	free(bytes);
	trec_archive_free(a);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static void check_build_api(const char *path)
{
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct trec_archive_stats st;
	uint8_t wrong[20] = { 1, 2, 3 };
	int rc = trec_archive_build(path, wrong, sizeof(wrong), TREC_ARCHIVE_FULL, &bytes, &len,
				    &st);
	result(rc == -ESTALE, "archive %s", "build refuses a file whose build-id differs");
	rc = trec_archive_build("/nonexistent/file", NULL, 0, TREC_ARCHIVE_FULL, &bytes, &len,
				&st);
	result(rc == -ENOENT, "archive %s", "build of a missing file is -ENOENT");
	rc = trec_archive_build("/etc/passwd", NULL, 0, TREC_ARCHIVE_FULL, &bytes, &len, &st);
	result(rc == -ENOEXEC, "archive %s", "build of a non-ELF file is -ENOEXEC");
	rc = trec_archive_build(path, NULL, 0, TREC_ARCHIVE_FULL, &bytes, &len, &st);
	struct trec_archive *a = NULL;
	int ok = !rc && st.bytes == len && st.symbols > 0 && st.lines > 0 &&
		 !trec_archive_parse(bytes, len, &a, NULL, 0) &&
		 trec_archive_tables(a)->build_id_len == 20;
	result(ok, "archive %s", "trec_archive_build output parses, carries the build-id");
	free(bytes);
	bytes = NULL;
	if (ok) {
		const struct trec_arc_tables *t = trec_archive_tables(a);
		rc = trec_archive_build(path, t->build_id, t->build_id_len, TREC_ARCHIVE_SYMBOLS,
					&bytes, &len, &st);
		result(!rc && st.lines == 0, "archive %s",
		       "build with the matching build-id at level symbols has no lines");
		if (!rc)
			free(bytes);
	}
	trec_archive_free(a);
}

int main(void)
{
	if (archive_test_setup())
		return 1;

	struct trec_archive *a;
	for (int level = TREC_ARCHIVE_SYMBOLS; level <= TREC_ARCHIVE_FULL; level++) {
		a = round_trip(workload("busy"), level, "busy");
		trec_archive_free(a);
	}
	a = round_trip(workload("inlines"), TREC_ARCHIVE_FULL, "inlines");
	if (a) {
		check_inline_chain(a);
		check_addr2line(a, workload("inlines"), "inlines", 2000, 0);
	}
	trec_archive_free(a);
	a = round_trip(workload("busy"), TREC_ARCHIVE_FULL, "busy");
	if (a) {
		check_addr2line(a, workload("busy"), "busy", 2000, 0);
		check_sampled(a, workload("busy"), "busy");
	}
	trec_archive_free(a);

	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	if (access(libc, R_OK) == 0) {
		a = round_trip(libc, TREC_ARCHIVE_FULL, "libc");
		/* libc's DWARF comes from libc6-dbg when installed. */
		if (a && trec_archive_tables(a)->num_lines) {
			check_addr2line(a, libc, "libc", 3000, 0.01);
			check_sampled(a, libc, "libc");
		}
		trec_archive_free(a);
	}
	check_build_api(workload("busy"));
	check_minidebuginfo();
	return failures ? 1 : 0;
}
