// SPDX-License-Identifier: MIT
/*
 * trec-harness [-v] CASE...: unwinds each captured thread state offline
 * with the real BPF unwinder and compares its frames with gdb's.
 * trec-harness --lookup ELF...: checks the BPF get_stack_delta() against
 * the extracted deltas at every address of each file's delta pages.
 *
 * Per case, fresh fake maps are filled by trecord's own code: if the
 * captured process still exists (capture.py can leave it stopped), by
 * trec_pid_sync_pid() exactly as trecord syncs a pid (maps, file ids,
 * biases, LPM prefixes, the delta store); otherwise from the case's maps
 * with the same building blocks (file ids, PT_LOAD biases, LPM split, the
 * delta store). The program then runs on the captured registers and stack.
 * The verdict, one PASS/FAIL line per case:
 *  - every frame both have must be the same pc (a wrong frame fails);
 *  - where gdb reached the outermost frame the unwinder must reach it too,
 *    without an error, unless the case names a function it may stop in
 *    (code without CFI) and the unwinder stopped there with an error;
 *  - where gdb gave up, frames beyond gdb's are reported as unverified;
 *    gdb frames from a pc below 0x1000 on are dropped (gdb's failure).
 * Python frames are left out of that comparison (gdb has none). A case
 * with a core dump (all of the process's memory) runs the Python
 * unwinder too, and gets a second line for its Python frames: named as
 * trecord and treport name them, they must equal the stack the script
 * wrote from its own frame objects, and each run of them must sit right
 * before a _PyEval_EvalFrameDefault frame of gdb's backtrace and end at a
 * frame the script says C code entered. PHP frames likewise (before
 * execute_ex frames; harness_php.c), for a case whose maps have a Zend
 * engine.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "harness_maps.h"
#include "harness_verdict.h"
#include "harness_replay.h"
#include "../unit/fake_delta_sink.h"
static bool file_bias(const struct harness_env *e, uint32_t pid, uint64_t file_id, uint64_t *bias)
{
	for (size_t i = 0; i < e->num_lpm; i++)
		if (e->lpm[i].v.file_id == file_id && e->lpm[i].k.pid_be == htobe32(pid) &&
		    e->lpm[i].k.prefix_len < 96) {
			*bias = e->lpm[i].v.bias_and_unwinder & TREC_BIAS_MASK;
			return true;
		}
	return false;
}

/* One non-error frame of the trace. */
struct hframe {
	uint64_t pc; /* runtime pc (~0 if its file's bias is unknown) */
	struct known_file *file;
	uint64_t vaddr;
	uint8_t kind, flags;
};

/* Whether libdw finds CFI (.eh_frame or .debug_frame) for vaddr in path:
 * its own FDE search, independent of the extraction's FDE walk. */
static bool has_cfi(const char *path, uint64_t vaddr)
{
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* cannot tell: assume it has */
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	Dwarf_Frame *frame = NULL;
	if (cfi && dwarf_cfi_addrframe(cfi, vaddr, &frame) == 0)
		found = true;
	free(frame);
	if (cfi)
		dwarf_cfi_end(cfi);
	Dwarf *dbg = !found && elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	Dwarf_CFI *dcfi = dbg ? dwarf_getcfi(dbg) : NULL;
	frame = NULL;
	if (dcfi && dwarf_cfi_addrframe(dcfi, vaddr, &frame) == 0)
		found = true;
	free(frame);
	if (dbg)
		dwarf_end(dbg);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static const char *frame_kind(uint8_t kind)
{
	switch (kind) {
	case TREC_FRAME_NATIVE: return "native";
	case TREC_FRAME_PYTHON: return "python";
	case TREC_FRAME_RUBY: return "ruby";
	case TREC_FRAME_KERNEL: return "kernel";
	}
	return "other";
}

static bool is_eval_frame(const struct harness_frame *g)
{
	return strcmp(g->name, "_PyEval_EvalFrameDefault") == 0 ||
	       strcmp(g->name, "rb_vm_exec") == 0; /* Ruby's */
}

static bool is_loop(const void *ctx, const struct harness_case *c, size_t i)
{
	(void)ctx;
	return is_eval_frame(&c->frames[i]);
}

/* An interpreter frame's function, file and line, by its kind. */
static int interp_lookup(const void *ctx, uint32_t pid, const struct trec_frame *f,
			 struct rp_interp_sym *out)
{
	const struct case_maps *cm = ctx;
	struct trec_pyframe_sym sym;
	int err = f->kind != TREC_FRAME_RUBY ? harness_py_lookup(cm->py, pid, f, &sym)
		  : cm->rb			   ? harness_rb_lookup(cm->rb, pid, f, &sym)
						   : -ENOENT;

	if (!err)
		*out = (struct rp_interp_sym){ sym.function, sym.file, sym.line };
	return err;
}

static void print_trace(const struct case_maps *cm, const struct harness_case *c,
			const struct hframe *hf, size_t nh, const struct harness_iframe *py, size_t npy)
{
	size_t k = 0, pos = 0;

	printf("  trace (innermost first):\n");
	for (size_t i = 0; i <= nh; i++) {
		for (; k < npy && py[k].next_native == i; k++, pos++) {
			struct rp_interp_sym sym;
			if (interp_lookup(cm, c->pid, py[k].f, &sym) == 0)
				printf("  %3zu %s %s (%s:%d)\n", pos, frame_kind(py[k].f->kind),
				       sym.function, sym.file, sym.line);
			else
				printf("  %3zu %s [code %#llx]\n", pos, frame_kind(py[k].f->kind),
				       (unsigned long long)py[k].f->file_id);
		}
		if (i < nh)
			printf("  %3zu %s %#lx %s\n", pos++, frame_kind(hf[i].kind), (unsigned long)hf[i].pc, symbolize(hf[i].file, hf[i].vaddr));
	}
}

static const char *error_name(uint64_t code)
{
	switch (code) {
#define TREC_X(name, c, desc) case c: return #name;
		TREC_ERROR_LIST(TREC_X)
#undef TREC_X
	}
	return "?";
}

/* Whether pc lies in one of the case's executable mappings. */
static bool in_exec_map(const struct harness_case *c, uint64_t pc)
{
	for (size_t i = 0; i < c->num_maps; i++)
		if (pc >= c->maps[i].start && pc < c->maps[i].end)
			return true;
	return false;
}

static int run_case(struct harness *h, const char *path)
{
	struct harness_case c;
	struct case_maps cm = { 0 };
	struct hframe *hf = NULL;
	struct harness_iframe *py = NULL;
	struct harness_iframe *php = NULL;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int err = harness_case_read(path, &c);
	if (err) {
		printf("FAIL: harness %s: cannot read case: %s\n", name, strerror(-err));
		return -1;
	}
	h->cases++;

	/* Maps: trecord's pid sync if the process is still there. */
	char proc[64];
	uint32_t deltas = 0, infos = 0;
	snprintf(proc, sizeof(proc), "/proc/%u/maps", c.pid);
	/* TREC_HARNESS_CASE_MAPS: the pid is not the process's (qemu-user). */
	int live = !getenv("TREC_HARNESS_CASE_MAPS") && access(proc, R_OK) == 0;
	harness_forget_caches();
	cm.env.sink = fake_sink_new(1 << 20);
	cm.env.mem = c.mem;
	cm.env.num_mem = c.num_mem;
	hf = calloc(TREC_MAX_FRAMES, sizeof(*hf));
	py = calloc(TREC_MAX_FRAMES, sizeof(*py));
	php = calloc(TREC_MAX_FRAMES, sizeof(*php));
	/* Interpreter frames need the heap: only a core dump has it. */
	if (c.core && (!(cm.py = harness_py_new(&cm.env)) || !(cm.php = harness_php_new(&cm.env)) ||
		       !(cm.perl = harness_perl_new(&cm.env)) ||
		       !(cm.rb = harness_rb_new(&cm.env))))
		err = -ENOMEM;
	if (!cm.env.sink || !hf || !py || !php)
		err = -ENOMEM;
	else if (live)
		err = maps_from_pid_sync(&cm, c.pid, &deltas, &infos);
	else
		err = maps_from_case(&cm, &c, &deltas, &infos);
	if (err) {
		printf("FAIL: harness %s: filling the maps: %s\n", name, strerror(-err));
		goto out;
	}
	h->live_syncs += live;
	h->max_deltas = deltas > h->max_deltas ? deltas : h->max_deltas;
	h->max_infos = infos > h->max_infos ? infos : h->max_infos;
	if (harness_unwind(&cm.env, &c.regs, c.pid, c.tid) != 0) {
		printf("FAIL: harness %s: the program sent no trace\n", name);
		goto out;
	}
	struct harness_replay_result rr;
	const char *rwhy = "";
	if (!harness_replay_check(&cm.env, &c, &rr, &rwhy)) {
		printf("FAIL: harness %s: %s\n", name, rwhy);
		goto out;
	}
	h->replayed += rr.replayed;
	h->refused += rr.refused;
	h->map_refused += rr.map_refused;
	h->quiet += rr.quiet;
	h->any_words += rr.any_words;
	h->any_replayed += rr.any_replayed;
	h->deltas += rr.delta;
	h->lost_bases += rr.lost_base;

	/* Trace -> runtime pcs. */
	const struct trec_trace *t = &cm.env.trace;
	size_t nh = 0, npy = 0, nphp = 0;
	int herr = 0;
	uint64_t herr_code = 0;
	for (unsigned i = 0; i < t->num_frames && i < TREC_MAX_FRAMES; i++) {
		const struct trec_frame *fr = &t->frames[i];
		struct hframe *x = &hf[nh];
		uint64_t bias;
		memset(x, 0, sizeof(*x));
		if (fr->flags & TREC_FRAME_F_ERROR) {
			herr = 1;
			herr_code = fr->addr_or_line;
			continue;
		}
		if (fr->kind == TREC_FRAME_PERL)
			continue; /* harness_perl_check's */
		if (fr->kind == TREC_FRAME_PYTHON || fr->kind == TREC_FRAME_RUBY) {
			py[npy].f = fr;
			py[npy++].next_native = nh;
			continue;
		}
		if (fr->kind == TREC_FRAME_PHP) {
			php[nphp].f = fr;
			php[nphp++].next_native = nh;
			continue;
		}
		x->pc = fr->addr_or_line;
		x->vaddr = fr->addr_or_line;
		x->kind = fr->kind;
		x->flags = fr->flags;
		if (!(fr->flags & TREC_FRAME_F_ABSOLUTE)) {
			x->file = file_by_id(&cm, fr->file_id);
			x->pc = file_bias(&cm.env, c.pid, fr->file_id, &bias) ? fr->addr_or_line + bias
									       : ~0ULL;
		}
		nh++;
	}

	/* Verdict. A gdb frame with a pc below the first page is gdb giving up
	 * (e.g. clone3 right after the syscall, where glibc has no CFI), and so
	 * is one in no executable mapping (gdb unwinding Go's vdso call on the
	 * g0 stack with the goroutine's CFI: a heap address follows): it and
	 * anything after it are no frames. */
	size_t ng = 0;
	while (ng < c.num_frames && c.frames[ng].pc >= 0x1000 && in_exec_map(&c, c.frames[ng].pc))
		ng++;
	size_t n = nh < ng ? nh : ng, wrong = n;
	for (size_t i = 0; i < n && wrong == n; i++)
		if (hf[i].pc != c.frames[i].pc)
			wrong = i;
	const char *why = NULL, *note = "";
	if (wrong < n) {
		why = "wrong frame";
	} else if (nh < ng) {
		/* Stopping early is right where the code has no CFI: gdb may go
		 * on by heuristics, the unwinder must not guess. */
		int allowed = 0, root = 0;
		for (size_t k = 0; nh > 0 && k < c.num_stop_in; k++) {
			/* "root:NAME": a clean end there (Go's stack switches) */
			bool r = !strncmp(c.stop_in[k], "root:", 5);

			if (!strcmp(c.frames[nh - 1].name, c.stop_in[k] + (r ? 5 : 0))) {
				allowed |= !r;
				root |= r;
			}
		}
		if (root && !herr)
			note = ", a root (gdb went on)";
		const struct hframe *last = nh ? &hf[nh - 1] : NULL;
		if (!allowed && herr && herr_code == TREC_ERR_NATIVE_STACK_DELTA_INVALID && last &&
		    last->file &&
		    !has_cfi(last->file->path,
			     last->vaddr - !!(last->flags & TREC_FRAME_F_RETURN_ADDRESS))) {
			allowed = 1;
			note = ", stopped where the code has no CFI (gdb went on)";
		}
		if (!(root && !herr) && (!herr || !allowed))
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
		printf("PASS: harness %s: %zu frames match gdb%s%s%s%s (maps from %s)\n", name, n,
		       herr ? ", then " : "", herr ? error_name(herr_code) : "", note,
		       nh > ng ? ", more frames than gdb: unverified" : "",
		       live ? "trecord's pid sync" : "the case file");
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
			printf("  %3zu %s %-50s | gdb %s\n", i,
			       i < n && hf[i].pc != c.frames[i].pc ? "!=" : "  ", hs, gs);
		}
		if (herr)
			printf("      unwinder error: %s\n", error_name(herr_code));
		printf("      gdb stop: %s\n", c.gdb_outermost ? "outermost" : "other");
	}
	if (cm.php && harness_php_found(cm.php)) {
		h->php_cases++;
		h->php_passed += harness_php_verdict(cm.php, &c, name, php, nphp, ng, live);
		h->php_frames += nphp;
	}
	if (harness_perl_found(cm.perl)) {
		/* A Perl process: its "pyframe" lines are caller()'s stack. */
		size_t plf = 0;

		h->pl_cases++;
		h->pl_passed += harness_perl_check(cm.perl, &c, t, ng, live, name, &plf);
		h->pl_frames += plf;
	}
	/* The Python verdict, unless the case is another interpreter's. */
	if (cm.py && !(cm.php && harness_php_found(cm.php)) && !harness_perl_found(cm.perl)) {
		bool rb = harness_rb_found(cm.rb);
		const struct harness_lang l = { rb ? "ruby" : "python", rb ? "Ruby" : "Python",
						rb ? "rb_vm_exec" : "_PyEval_EvalFrameDefault",
						interp_lookup, is_loop, &cm };
		const char *pywhy = NULL;
		size_t runs = 0;
		int undescribed = harness_py_describe(cm.py, c.pid, t, live) +
				  harness_rb_describe(cm.rb, c.pid, t, live);

		h->py_cases++;
		if (undescribed)
			pywhy = "a code object could not be read from the captured memory";
		else if (!harness_py_found(cm.py) && !(cm.rb && harness_rb_found(cm.rb)))
			pywhy = "no CPython or Ruby found in the maps";
		else
			pywhy = harness_runs_verdict(&l, &c, py, npy, ng, &runs);
		h->py_passed += harness_say_verdict(&l, name, pywhy, npy, runs, "code objects read",
						    live);
		h->py_frames += npy;
		print_trace(&cm, &c, hf, nh, py, npy);
		if (pywhy)
			harness_print_script_stack(&c);
	}
out:
	free(php);
	free(py);
	free(hf);
	case_maps_free(&cm);
	harness_case_free(&c);
	return 0;
}

/* The BPF lookup over the store's maps vs. the extraction, every address. */
static int lookup_file(struct case_maps *cm, uint64_t id, const char *path)
{
	struct trec_file_deltas d;
	int err = trec_deltas_extract(path, &d);
	if (!err && d.num == 0)
		err = -ENODATA;
	if (!err)
		err = trec_delta_store_load(cm->store, id, &d);
	if (err) {
		printf("FAIL: lookup %s: %s\n", path, strerror(-err));
		trec_file_deltas_free(&d);
		return -1;
	}
	uint64_t lo = d.entries[0].addr & ~TREC_DELTA_PAGE_MASK;
	uint64_t hi = (d.entries[d.num - 1].addr | TREC_DELTA_PAGE_MASK) + 1;
	size_t bad = 0;
	/* Twice per address: the search, then delta_rule_cache's copy of it;
	 * the next address finds its set (addr >> 2) holding other keys. */
	for (uint64_t a = 2 * lo; a < 2 * hi; a++) {
		uint64_t at = a / 2;
		uint16_t info = 0;
		int e = harness_stack_delta(&cm->env, id, at, &info);
		struct resolved_rule want = source_rule(&d, at), got = { 0 };
		if (e)
			got.command = 0xffff; /* never a valid rule */
		else if (info & TREC_UNWIND_COMMAND)
			got.command = info;
		else
			got.info = cm->env.sink->infos[info];
		if (!resolved_eq(&got, &want) && bad++ < 5)
			printf("  %#lx: BPF lookup gave %#x (error %d), extraction %#x\n",
			       (unsigned long)at, got.command, e, want.command);
	}
	/* Beyond the last page there must be no page entry at all. */
	uint16_t info;
	int after = harness_stack_delta(&cm->env, id, hi, &info);
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
	int first = 1, lookup = 0, failed = 0;
	if (argc > 1 && strcmp(argv[1], "-v") == 0)
		h.verbose = first = 2;
	if (argc > 1 && strcmp(argv[1], "--lookup") == 0)
		lookup = first = 2;
	if (argc <= first) {
		fprintf(stderr, "usage: %s [-v] CASE...\n       %s --lookup ELF...\n", argv[0],
			argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	if (lookup) {
		/* All files in one store, as trecord shares it between files. */
		struct case_maps cm = { 0 };
		cm.env.sink = fake_sink_new(1 << 22);
		cm.store = cm.env.sink ? trec_delta_store_new(&fake_sink_ops, cm.env.sink) : NULL;
		for (int i = first; cm.store && i < argc; i++)
			failed |= lookup_file(&cm, (uint64_t)i, argv[i]) != 0;
		failed |= !cm.store;
		case_maps_free(&cm);
		return failed;
	}
	for (int i = first; i < argc; i++)
		run_case(&h, argv[i]);
	printf("harness: %zu/%zu cases agree with gdb (%zu with maps from trecord's pid sync), "
	       "%zu frames compared, %zu unverified; largest store: %u deltas, %u unwind infos\n",
	       h.passed, h.cases, h.live_syncs, h.frames_compared, h.frames_unverified,
	       h.max_deltas, h.max_infos);
	printf("harness: stack replay: %zu cases replayed their second sample; %zu refused to with "
	       "a stack word changed, giving a fresh walk's trace; %zu with a trie page changed\n",
	       h.replayed, h.refused, h.map_refused);
	printf("harness: stack replay: %zu cases went quiet and came back\n", h.quiet);
	printf("harness: stack replay: %zu stack words changed one at a time, each giving a fresh "
	       "walk's trace; %zu of them still replayed\n", h.any_words, h.any_replayed);
	printf("harness: trace deltas: %zu replayed samples sent as deltas and rebuilt; %zu lost "
	       "bases caught (leaf and DELTA_NO_BASE)\n",
	       h.deltas, h.lost_bases);
	if (h.py_cases)
		printf("harness: %zu/%zu Python cases agree with the scripts' own stacks, %zu Python "
		       "frames\n",
		       h.py_passed, h.py_cases, h.py_frames);
	if (h.php_cases)
		printf("harness: %zu/%zu PHP cases agree with the scripts' own stacks, %zu PHP frames\n",
		       h.php_passed, h.php_cases, h.php_frames);
	if (h.pl_cases)
		printf("harness: %zu/%zu Perl cases agree with the scripts' own stacks, %zu Perl "
		       "frames\n",
		       h.pl_passed, h.pl_cases, h.pl_frames);
	return h.passed == h.cases && h.py_passed == h.py_cases && h.php_passed == h.php_cases &&
		       h.pl_passed == h.pl_cases
		       ? 0
		       : 1;
}
