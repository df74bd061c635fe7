// SPDX-License-Identifier: MIT
/*
 * CPython detection (record/interp/python/python_detect.c, python_tsd.c, python_cold.c)
 * against independent references:
 *  - the pthread TSD layout against this process's own pthread_setspecific
 *    values, read at fs base + offset;
 *  - every offset against the interpreter's DWARF through gdb, for each
 *    CPython 3.8+ on the machine that has debug info (pyenv builds);
 *  - the .cold range heuristic against the .cold symbol where both exist;
 *  - non-Python and too-old files rejected with the right error.
 */
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include "record/interp/python/python_cold.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_elf.h"
#include "record/interp/python/python_tsd.h"
#include "python_check.h"

static int tsd_matches(const struct trec_tsd_info *t, pthread_key_t key, void *want)
{
	unsigned long fs = 0;
	void **slot;

	if (syscall(SYS_arch_prctl, ARCH_GET_FS, &fs) || key >= TREC_PY_TSD_DIRECT_KEYS)
		return 0;
	slot = (void **)(fs + (long)t->offset + (unsigned long)key * t->multiplier);
	return *slot == want;
}

static struct trec_tsd_info tsd;
static pthread_key_t keys[3];

static void *thread_check(void *arg)
{
	int ok = 1, marker;

	for (int i = 0; i < 3; i++) {
		pthread_setspecific(keys[i], &marker + i);
		ok &= tsd_matches(&tsd, keys[i], &marker + i);
	}
	*(int *)arg = ok;
	return NULL;
}

static void test_tsd(void)
{
	static const uint8_t junk[] = { 0x55, 0x48, 0x89, 0xe5, 0xc3, 0, 0, 0 };
	struct trec_tsd_info t;
	int ok = 1, thread_ok = 0, marker[3];
	pthread_t th;

	CHECK(!trec_tsd_detect_pid(getpid(), &tsd), "libc pthread_getspecific decoded (offset %#x, x%u)",
	      tsd.offset, tsd.multiplier);
	for (int i = 0; i < 3; i++) {
		pthread_key_create(&keys[i], NULL);
		pthread_setspecific(keys[i], &marker[i]);
		ok &= tsd_matches(&tsd, keys[i], &marker[i]);
	}
	CHECK(ok, "TSD slots hold pthread_setspecific's values (main thread, keys %u..%u)", keys[0],
	      keys[2]);
	pthread_create(&th, NULL, thread_check, &thread_ok);
	pthread_join(th, NULL);
	CHECK(thread_ok, "TSD slots hold pthread_setspecific's values (second thread)");
	CHECK(trec_tsd_decode(junk, sizeof(junk), &t) == -ENOTSUP, "unknown code rejected");
}

/* gdb expressions for each offset, per minor version: the DWARF reference. */
struct gdb_check {
	const char *expr[3]; /* for 3.11, 3.12, 3.13; NULL: not applicable */
	size_t field;        /* offsetof(struct trec_py_offsets, ...) */
	int is_u64;
};

#define OFF(f) offsetof(struct trec_py_offsets, f)
#define CODE(m) { "&((PyCodeObject*)0)->" m, "&((PyCodeObject*)0)->" m, "&((PyCodeObject*)0)->" m }
#define FRAME(a, b, c) { "&((struct _PyInterpreterFrame*)0)->" a, "&((struct _PyInterpreterFrame*)0)->" b, \
			 "&((struct _PyInterpreterFrame*)0)->" c }
static const struct gdb_check checks[] = {
	{ CODE("co_argcount"), OFF(code_argcount), 0 },
	{ CODE("co_kwonlyargcount"), OFF(code_kwonlyargcount), 0 },
	{ CODE("co_flags"), OFF(code_flags), 0 },
	{ CODE("co_firstlineno"), OFF(code_firstlineno), 0 },
	{ CODE("co_filename"), OFF(code_filename), 0 },
	{ CODE("co_name"), OFF(code_name), 0 },
	{ CODE("co_qualname"), OFF(code_qualname), 0 },
	{ CODE("co_linetable"), OFF(code_linetable), 0 },
	{ CODE("co_code_adaptive"), OFF(code_adaptive), 0 },
	{ FRAME("f_code", "f_code", "f_executable"), OFF(frame_code), 0 },
	{ FRAME("previous", "previous", "previous"), OFF(frame_previous), 0 },
	{ FRAME("prev_instr", "prev_instr", "instr_ptr"), OFF(frame_instr), 0 },
	{ FRAME("is_entry", "owner", "owner"), OFF(frame_entry), 0 },
	{ { "&((struct _ts*)0)->cframe", "&((struct _ts*)0)->cframe", NULL }, OFF(tstate_cframe), 0 },
	{ { "&((struct _PyCFrame*)0)->current_frame", "&((struct _PyCFrame*)0)->current_frame", NULL },
	  OFF(cframe_current_frame), 0 },
	{ { NULL, NULL, "&((struct _ts*)0)->current_frame" }, OFF(tstate_frame), 0 },
	{ { "(char*)&_PyRuntime.gilstate.autoTSSkey - (char*)0", "(char*)&_PyRuntime.autoTSSkey - (char*)0",
	    "(char*)&_PyRuntime.autoTSSkey - (char*)0" }, OFF(tss_vaddr), 1 },
	{ { "sizeof(PyASCIIObject)", "sizeof(PyASCIIObject)", "sizeof(PyASCIIObject)" }, OFF(str_ascii_data), 0 },
	{ { "sizeof(PyCompactUnicodeObject)", "sizeof(PyCompactUnicodeObject)", "sizeof(PyCompactUnicodeObject)" },
	  OFF(str_compact_data), 0 },
	{ { "&((PyBytesObject*)0)->ob_sval", "&((PyBytesObject*)0)->ob_sval", "&((PyBytesObject*)0)->ob_sval" },
	  OFF(bytes_data), 0 },
	{ { "&((PyASCIIObject*)0)->length", "&((PyASCIIObject*)0)->length", "&((PyASCIIObject*)0)->length" },
	  OFF(str_length), 0 },
	{ { "&((PyVarObject*)0)->ob_size", "&((PyVarObject*)0)->ob_size", "&((PyVarObject*)0)->ob_size" },
	  OFF(bytes_size), 0 },
};
#define NUM_CHECKS (sizeof(checks) / sizeof(checks[0]))

/* The same for 3.8, 3.9, 3.10 (PyFrameObject chain; no co_qualname: the
 * detector takes co_name for it). */
#define OLD3(e) { e, e, e }
static const struct gdb_check old_checks[] = {
	{ OLD3("&((PyCodeObject*)0)->co_argcount"), OFF(code_argcount), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_kwonlyargcount"), OFF(code_kwonlyargcount), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_flags"), OFF(code_flags), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_firstlineno"), OFF(code_firstlineno), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_filename"), OFF(code_filename), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_name"), OFF(code_name), 0 },
	{ OLD3("&((PyCodeObject*)0)->co_name"), OFF(code_qualname), 0 },
	{ { "&((PyCodeObject*)0)->co_lnotab", "&((PyCodeObject*)0)->co_lnotab",
	    "&((PyCodeObject*)0)->co_linetable" }, OFF(code_linetable), 0 },
	{ OLD3("sizeof(PyCodeObject)"), OFF(code_adaptive), 0 },
	{ OLD3("&((PyFrameObject*)0)->f_code"), OFF(frame_code), 0 },
	{ OLD3("&((PyFrameObject*)0)->f_back"), OFF(frame_previous), 0 },
	{ OLD3("&((PyFrameObject*)0)->f_lasti"), OFF(frame_instr), 0 },
	{ OLD3("&((PyThreadState*)0)->frame"), OFF(tstate_frame), 0 },
	{ OLD3("(char*)&_PyRuntime.gilstate.autoTSSkey - (char*)0"), OFF(tss_vaddr), 1 },
	{ OLD3("sizeof(PyASCIIObject)"), OFF(str_ascii_data), 0 },
	{ OLD3("sizeof(PyCompactUnicodeObject)"), OFF(str_compact_data), 0 },
	{ OLD3("&((PyBytesObject*)0)->ob_sval"), OFF(bytes_data), 0 },
	{ OLD3("&((PyASCIIObject*)0)->length"), OFF(str_length), 0 },
	{ OLD3("&((PyVarObject*)0)->ob_size"), OFF(bytes_size), 0 },
};
#define NUM_OLD_CHECKS (sizeof(old_checks) / sizeof(old_checks[0]))

static int has_debug_info(const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "readelf -S '%s' 2>/dev/null | grep -q '\\.debug_info'", path);
	return system(cmd) == 0;
}

static void against_dwarf(const char *path, const struct trec_py_offsets *o)
{
	int v = (int)o->minor - 11, asked = 0, bad = 0;
	const struct gdb_check *checks_ = checks;
	size_t num = NUM_CHECKS;
	char cmd[16384], line[512];
	size_t at;
	FILE *p;

	if (v < 0) {
		v = (int)o->minor - 8;
		checks_ = old_checks;
		num = NUM_OLD_CHECKS;
	}
	if (v < 0 || v > 2)
		return;
	at = (size_t)snprintf(cmd, sizeof(cmd), "gdb -batch -nx");
	for (unsigned i = 0; i < num; i++)
		if (checks_[i].expr[v])
			at += (size_t)snprintf(cmd + at, sizeof(cmd) - at, " -ex 'print (long)(%s)'",
					       checks_[i].expr[v]);
	snprintf(cmd + at, sizeof(cmd) - at, " '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	for (unsigned i = 0; i < num; i++) {
		const char *f = (const char *)o + checks_[i].field;
		unsigned long long want, got;

		if (!checks_[i].expr[v])
			continue;
		asked++;
		if (!fgets(line, sizeof(line), p) || sscanf(line, "$%*d = %llu", &want) != 1) {
			printf("  gdb gave no value for %s\n", checks_[i].expr[v]);
			bad++;
			continue;
		}
		if (checks_[i].is_u64) {
			memcpy(&got, f, 8);
		} else {
			uint16_t g;

			memcpy(&g, f, 2);
			got = g;
		}
		if (got != want) {
			printf("  %s: detected %llu, DWARF says %llu\n", checks_[i].expr[v], got, want);
			bad++;
		}
	}
	pclose(p);
	CHECK(!bad && asked, "%s: %d offsets equal the DWARF (gdb)", path, asked);
}

static void test_interpreter(const char *path, int want_minor)
{
	struct trec_py_offsets o;
	char err[512] = "";
	int ret = trec_py_detect(path, &o, err, sizeof(err));

	CHECK(!ret && o.major == 3 && (int)o.minor == want_minor, "%s: detected %u.%u.%u %s", path,
	      o.major, o.minor, o.micro, err);
	if (ret)
		return;
	CHECK(o.eval_end > o.eval_start && (!o.cold_start || o.cold_end > o.cold_start),
	      "%s: eval loop [%#llx,%#llx) cold [%#llx,%#llx) (%s)", path,
	      (unsigned long long)o.eval_start, (unsigned long long)o.eval_end,
	      (unsigned long long)o.cold_start, (unsigned long long)o.cold_end,
	      o.cold_from_symbol ? "symbol" : o.cold_start ? "from jumps" : "none");
	if (o.cold_from_symbol) {
		struct trec_pyelf e;
		uint64_t s = 0, end = 0;

		/* Where the heuristic is confident it must agree with the symbol. */
		if (!trec_pyelf_open(&e, path)) {
			int found = !trec_py_find_cold(&e, o.eval_start, o.eval_end, &s, &end);

			CHECK(!found || (s == o.cold_start && end <= o.cold_end + 16 && end + 16 >= o.cold_end),
			      "%s: jump heuristic %s the .cold symbol", path,
			      found ? "agrees with" : "abstains (too small) and does not contradict");
			trec_pyelf_close(&e);
		}
	}
	if (has_debug_info(path))
		against_dwarf(path, &o);
}

int main(void)
{
	struct trec_py_offsets o;
	glob_t g = { 0 };
	char tmp[] = "/tmp/trec-pydetect.XXXXXX";
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_tsd();

	CHECK(trec_py_detect("/bin/sh", &o, NULL, 0) == -ENOENT, "a non-Python ELF: -ENOENT");
	fd = mkstemp(tmp);
	if (fd >= 0) {
		CHECK(write(fd, "#!/bin/sh\n", 10) == 10 && trec_py_detect(tmp, &o, NULL, 0) == -ENOENT,
		      "a text file: -ENOENT");
		close(fd);
		unlink(tmp);
	}
	CHECK(trec_py_detect("/nonexistent/python", &o, NULL, 0) == -ENOENT, "a missing file: -ENOENT");

	if (!access("/usr/bin/python3.11", R_OK))
		test_interpreter("/usr/bin/python3.11", 11);
	glob("/root/.pyenv/versions/3.1[123]*/lib/libpython3.1[123].so.1.0", 0, NULL, &g);
	for (size_t i = 0; i < g.gl_pathc; i++)
		test_interpreter(g.gl_pathv[i], g.gl_pathv[i][strlen(g.gl_pathv[i]) - 8] - '0' + 10);
	globfree(&g);
	glob("/root/.pyenv/versions/3.[89].*/lib/libpython3.[89].so.1.0", 0, NULL, &g);
	glob("/root/.pyenv/versions/3.10.*/lib/libpython3.10.so.1.0", GLOB_APPEND, NULL, &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *so = strstr(g.gl_pathv[i], "libpython3.");

		test_interpreter(g.gl_pathv[i], atoi(so + strlen("libpython3.")));
	}
	globfree(&g);
	/* 3.7 and older: no PyCode_NewWithPosOnlyArgs. */
	glob("/root/.pyenv/versions/3.7.*/lib/libpython3.7m.so.1.0", 0, NULL, &g);
	if (g.gl_pathc)
		CHECK(trec_py_detect(g.gl_pathv[0], &o, NULL, 0) == -ENOTSUP, "%s: too old, -ENOTSUP",
		      g.gl_pathv[0]);
	globfree(&g);
	return failures ? 1 : 0;
}
