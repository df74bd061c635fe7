// SPDX-License-Identifier: MIT
/* CPython version and offset detection; see python_detect.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "record/interp/python/python_cold.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_detect_old.h"
#include "record/interp/python/python_elf.h"
#include "record/interp/python/python_procmaps.h"

/*
 * What the interpreter's own data cannot tell us, per minor version.
 * Checked against the DWARF of Debian's 3.11.2 (python3.11-dbg) and of
 * pyenv builds of 3.8.18, 3.9.18, 3.10.13, 3.11.7, 3.12.1 and 3.13.0
 * (gdb ptype /o).
 */
struct py_layout {
	unsigned minor;
	uint16_t tss_in_runtime; /* &_PyRuntime.(gilstate.)autoTSSkey - &_PyRuntime */
	uint16_t tstate_cframe, cframe_current_frame, tstate_frame;
	uint16_t frame_code, frame_previous, frame_instr, frame_entry;
	uint8_t entry_kind;
	uint16_t str_ascii_data; /* sizeof(PyASCIIObject) */
};

static const struct py_layout layouts[] = {
	/* 3.8-3.10: PyThreadState.frame -> PyFrameObject {f_back 24, f_code
	 * 32, int f_lasti}; checked against pyenv's 3.8.18, 3.9.18 and
	 * 3.10.13 (DWARF, gdb ptype /o) and, when loaded, against PyFrame_Type
	 * (python_detect_old.c). frame_entry is unused (every frame is a run). */
	{ 8, 0x570, 0xffff, 0, 0x18, 32, 24, 104, 0, TREC_PY_ENTRY_EVERY_FRAME, 48 },
	{ 9, 0x248, 0xffff, 0, 0x18, 32, 24, 104, 0, TREC_PY_ENTRY_EVERY_FRAME, 48 },
	{ 10, 0x248, 0xffff, 0, 0x18, 32, 24, 96, 0, TREC_PY_ENTRY_EVERY_FRAME, 48 },
	{ 11, 0x250, 0x38, 0x08, 0, 32, 48, 56, 68, TREC_PY_ENTRY_IS_ENTRY, 48 },
	{ 12, 0x608, 0x38, 0x00, 0, 0, 8, 56, 70, TREC_PY_ENTRY_OWNER_CSTACK, 40 },
	{ 13, 0x870, 0xffff, 0, 0x48, 0, 8, 56, 70, TREC_PY_ENTRY_OWNER_CSTACK, 40 },
};

/* PyTypeObject and PyMemberDef layout: stable since 3.0 on 64-bit. */
#define TP_NAME 24
#define TP_BASICSIZE 32
#define TP_MEMBERS 240
#define MEMBERDEF_SIZE 40
#define MEMBERDEF_TYPE 8
#define MEMBERDEF_OFFSET 16
#define T_INT 1
#define T_OBJECT 6
#define T_OBJECT_EX 16

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int type_basicsize(struct trec_pyelf *e, const char *sym, const char *want_name,
			  uint64_t *type_addr, uint64_t *basicsize)
{
	uint64_t p;
	char name[32];

	if (trec_pyelf_symbol(e, sym, type_addr, NULL) ||
	    trec_pyelf_read_ptr(e, *type_addr + TP_NAME, &p) ||
	    trec_pyelf_read_str(e, p, name, sizeof(name)) || strcmp(name, want_name) ||
	    trec_pyelf_read(e, *type_addr + TP_BASICSIZE, basicsize, sizeof(*basicsize)))
		return -EINVAL;
	return 0;
}

struct member_want {
	const char *name;
	int is_int;
	uint16_t *dst;
	int optional; /* absent before 3.11 (qualname) or 3.10 (linetable) */
};

/* Fills the co_* offsets from PyCode_Type's PyMemberDef table. */
static int code_members(struct trec_pyelf *e, uint64_t code_type, struct trec_py_offsets *o,
			char *err, size_t errlen)
{
	uint16_t lnotab = 0;
	struct member_want want[] = {
		{ "co_argcount", 1, &o->code_argcount, 0 },
		{ "co_kwonlyargcount", 1, &o->code_kwonlyargcount, 0 },
		{ "co_flags", 1, &o->code_flags, 0 },
		{ "co_firstlineno", 1, &o->code_firstlineno, 0 },
		{ "co_filename", 0, &o->code_filename, 0 },
		{ "co_name", 0, &o->code_name, 0 },
		{ "co_qualname", 0, &o->code_qualname, 1 },
		{ "co_linetable", 0, &o->code_linetable, 1 },
		{ "co_lnotab", 0, &lnotab, 1 },
	};
	unsigned found = 0;
	uint64_t table;

	if (trec_pyelf_read_ptr(e, code_type + TP_MEMBERS, &table) || !table)
		return fail(err, errlen, -EINVAL, "PyCode_Type has no tp_members");
	for (unsigned i = 0; i < 64; i++) {
		uint64_t at = table + i * MEMBERDEF_SIZE, name_p, off;
		int32_t type;
		char name[32];

		if (trec_pyelf_read_ptr(e, at, &name_p))
			return fail(err, errlen, -EINVAL, "PyCode_Type tp_members unreadable");
		if (!name_p)
			break;
		if (trec_pyelf_read_str(e, name_p, name, sizeof(name)) == -EFAULT ||
		    trec_pyelf_read(e, at + MEMBERDEF_TYPE, &type, sizeof(type)) ||
		    trec_pyelf_read(e, at + MEMBERDEF_OFFSET, &off, sizeof(off)))
			return fail(err, errlen, -EINVAL, "PyCode_Type tp_members unreadable");
		for (unsigned j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
			int type_ok = want[j].is_int ? type == T_INT
						     : type == T_OBJECT || type == T_OBJECT_EX;

			if (strcmp(name, want[j].name))
				continue;
			if (!type_ok || off >= 0x10000)
				return fail(err, errlen, -ENOTSUP, "code member %s: type %d offset %llu",
					    name, type, (unsigned long long)off);
			*want[j].dst = (uint16_t)off;
			found |= 1u << j;
		}
	}
	for (unsigned j = 0; j < sizeof(want) / sizeof(want[0]); j++)
		if (!(found & (1u << j)) && !want[j].optional)
			return fail(err, errlen, -ENOTSUP, "PyCode_Type has no member %s",
				    want[j].name);
	/* Before 3.11 code objects have no qualified name (the object id and
	 * the record use co_name twice); 3.8 and 3.9 have co_lnotab. */
	if (!(found & 1u << 6))
		o->code_qualname = o->code_name;
	if (!(found & 1u << 7))
		o->code_linetable = lnotab;
	if (!o->code_linetable || ((found & 1u << 6) != 0) != (o->minor >= 11))
		return fail(err, errlen, -ENOTSUP, "PyCode_Type members unexpected for %u.%u",
			    o->major, o->minor);
	return 0;
}

/* The object id's fields, in trec_py_object_id() order. */
static void id_fields(const struct trec_py_offsets *o, uint16_t ints[TREC_PY_ID_INTS],
		      uint16_t ptrs[TREC_PY_ID_PTRS])
{
	ints[0] = o->code_argcount;
	ints[1] = o->code_kwonlyargcount;
	ints[2] = o->code_flags;
	ints[3] = o->code_firstlineno;
	ptrs[0] = o->code_filename;
	ptrs[1] = o->code_name;
	ptrs[2] = o->code_qualname;
	ptrs[3] = o->code_linetable;
}

static uint16_t id_window(const uint16_t *ints, const uint16_t *ptrs)
{
	uint16_t lo = 0xffff;

	for (unsigned i = 0; i < TREC_PY_ID_INTS; i++)
		lo = ints[i] < lo ? ints[i] : lo;
	for (unsigned i = 0; i < TREC_PY_ID_PTRS; i++)
		lo = ptrs[i] < lo ? ptrs[i] : lo;
	return lo & ~7;
}

/* The BPF walker reads fixed-size blocks; every field must fit in them. */
static int check_bpf_limits(const struct trec_py_offsets *o)
{
	const uint16_t frame_ptrs[] = { o->frame_code, o->frame_previous, o->frame_instr };
	uint16_t ints[TREC_PY_ID_INTS], ptrs[TREC_PY_ID_PTRS], lo;

	if (o->entry_kind == TREC_PY_ENTRY_EVERY_FRAME) {
		/* pointers f_code, f_back; int f_lasti */
		for (unsigned i = 0; i < 2; i++)
			if (frame_ptrs[i] % 8 || frame_ptrs[i] + 8 > TREC_PY_OLD_FRAME_READ)
				return -ENOTSUP;
		if (o->frame_instr % 4 || o->frame_instr + 4 > TREC_PY_OLD_FRAME_READ)
			return -ENOTSUP;
	} else {
		for (unsigned i = 0; i < 3; i++)
			if (frame_ptrs[i] % 8 || frame_ptrs[i] + 8 > TREC_PY_FRAME_READ)
				return -ENOTSUP;
		if (o->frame_entry >= TREC_PY_FRAME_READ)
			return -ENOTSUP;
	}
	id_fields(o, ints, ptrs);
	lo = id_window(ints, ptrs);
	/* BPF reads the whole window: it must lie inside the object. */
	if (lo + TREC_PY_CODE_READ > o->code_adaptive)
		return -ENOTSUP;
	for (unsigned i = 0; i < TREC_PY_ID_INTS; i++)
		if (ints[i] % 4 || ints[i] - lo + 4 > TREC_PY_CODE_READ)
			return -ENOTSUP;
	for (unsigned i = 0; i < TREC_PY_ID_PTRS; i++)
		if (ptrs[i] % 8 || ptrs[i] - lo + 8 > TREC_PY_CODE_READ)
			return -ENOTSUP;
	return 0;
}

/* The perf trampoline's template bytes, if the file has one we can take. */
static void tramp_template(struct trec_pyelf *e, struct trec_py_offsets *o)
{
	uint64_t start, end;

	if (trec_pyelf_symbol(e, "_Py_trampoline_func_start", &start, NULL) ||
	    trec_pyelf_symbol(e, "_Py_trampoline_func_end", &end, NULL) || end <= start ||
	    end - start > sizeof(o->tramp) || trec_pyelf_read(e, start, o->tramp, end - start))
		return;
	o->tramp_len = (uint8_t)(end - start);
}

int trec_py_detect(const char *path, struct trec_py_offsets *o, char *err, size_t errlen)
{
	const struct py_layout *l = NULL;
	uint64_t version, runtime, runtime_size, eval_size, code_type, str_type, bytes_type;
	uint64_t code_size, str_size, bytes_size, cold, cold_size;
	struct trec_pyelf e;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = trec_pyelf_open(&e, path);
	if (ret)
		return fail(err, errlen, ret == -ENOEXEC ? -ENOENT : ret, "%s: %s", path,
			    strerror(-ret));
	if (trec_pyelf_symbol(&e, "_PyEval_EvalFrameDefault", &o->eval_start, &eval_size) ||
	    trec_pyelf_symbol(&e, "_PyRuntime", &runtime, &runtime_size)) {
		ret = fail(err, errlen, -ENOENT, "%s: not a CPython interpreter", path);
		goto out;
	}
	if (e.ehdr.e_machine != EM_X86_64) {
		ret = fail(err, errlen, -ENOTSUP, "%s: CPython on a machine other than x86-64", path);
		goto out;
	}
	/* Py_Version appeared in 3.11; older ones by their symbols and data. */
	if (!trec_pyelf_symbol(&e, "Py_Version", &version, NULL)) {
		if (trec_pyelf_read(&e, version, &o->version_hex, sizeof(o->version_hex))) {
			ret = fail(err, errlen, -ENOTSUP, "%s: Py_Version unreadable", path);
			goto out;
		}
	} else if ((ret = trec_py_old_version(&e, &o->version_hex))) {
		fail(err, errlen, ret, "%s: CPython older than 3.8 or not recognised", path);
		goto out;
	}
	o->major = o->version_hex >> 24;
	o->minor = (o->version_hex >> 16) & 0xff;
	o->micro = (o->version_hex >> 8) & 0xff;
	for (unsigned i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (o->major == 3 && layouts[i].minor == o->minor)
			l = &layouts[i];
	if (!l) {
		ret = fail(err, errlen, -ENOTSUP, "%s: CPython %u.%u.%u is not supported (3.8-3.13 are)",
			   path, o->major, o->minor, o->micro);
		goto out;
	}
	if (!eval_size || (uint64_t)l->tss_in_runtime + 8 > runtime_size) {
		ret = fail(err, errlen, -ENOTSUP, "%s: unexpected _PyRuntime or eval loop symbol", path);
		goto out;
	}
	o->eval_end = o->eval_start + eval_size;
	o->tss_vaddr = runtime + l->tss_in_runtime;
	o->tstate_cframe = l->tstate_cframe;
	o->cframe_current_frame = l->cframe_current_frame;
	o->tstate_frame = l->tstate_frame;
	o->frame_code = l->frame_code;
	o->frame_previous = l->frame_previous;
	o->frame_instr = l->frame_instr;
	o->frame_entry = l->frame_entry;
	o->entry_kind = l->entry_kind;

	if (type_basicsize(&e, "PyCode_Type", "code", &code_type, &code_size) ||
	    type_basicsize(&e, "PyUnicode_Type", "str", &str_type, &str_size) ||
	    type_basicsize(&e, "PyBytes_Type", "bytes", &bytes_type, &bytes_size)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: code, str or bytes type object unreadable", path);
		goto out;
	}
	o->code_type_vaddr = code_type;
	o->str_type_vaddr = str_type;
	o->bytes_type_vaddr = bytes_type;
	ret = code_members(&e, code_type, o, err, errlen);
	if (!ret && o->entry_kind == TREC_PY_ENTRY_EVERY_FRAME)
		ret = trec_py_old_check_frame(&e, o, err, errlen);
	if (ret)
		goto out;
	/* PyCode_Type.tp_basicsize is offsetof(co_code_adaptive); PyBytes_Type's
	 * is offsetof(ob_sval) + 1; a compact str's data follows the fixed part
	 * of PyUnicodeObject, whose last member is the data pointer. */
	o->code_adaptive = (uint16_t)code_size;
	o->bytes_size = 16;
	o->bytes_data = (uint16_t)(bytes_size - 1);
	o->str_length = 16;
	o->str_state = 32;
	o->str_ascii_data = l->str_ascii_data;
	o->str_compact_data = (uint16_t)(str_size - 8);
	if (check_bpf_limits(o)) {
		ret = fail(err, errlen, -ENOTSUP, "%s: offsets outside what the BPF walker reads", path);
		goto out;
	}

	if (!trec_pyelf_symbol(&e, "_PyEval_EvalFrameDefault.cold", &cold, &cold_size) &&
	    cold_size) {
		o->cold_start = cold;
		o->cold_end = cold + cold_size;
		o->cold_from_symbol = 1;
	} else {
		trec_py_find_cold(&e, o->eval_start, o->eval_end, &o->cold_start, &o->cold_end);
	}
	tramp_template(&e, o);
	ret = 0;
out:
	trec_pyelf_close(&e);
	return ret;
}

void trec_py_proc_info_init(const struct trec_py_offsets *o, uint64_t bias,
			    const struct trec_tsd_info *tsd, struct trec_py_proc_info *out)
{
	uint16_t ints[TREC_PY_ID_INTS], ptrs[TREC_PY_ID_PTRS];

	memset(out, 0, sizeof(*out));
	out->tss_addr = o->tss_vaddr + bias;
	out->version = (uint16_t)(o->major << 8 | o->minor);
	out->tsd_indirect = tsd->indirect;
	out->tsd_multiplier = tsd->multiplier;
	out->tsd_offset = tsd->offset;
	out->tstate_cframe = o->tstate_cframe;
	out->cframe_current_frame = o->cframe_current_frame;
	out->tstate_frame = o->tstate_frame;
	out->frame_code = o->frame_code;
	out->frame_previous = o->frame_previous;
	out->frame_instr = o->frame_instr;
	out->frame_entry = o->frame_entry;
	out->entry_kind = o->entry_kind;
	id_fields(o, ints, ptrs);
	out->code_window = id_window(ints, ptrs);
	for (unsigned i = 0; i < TREC_PY_ID_INTS; i++)
		out->code_ints[i] = (uint8_t)(ints[i] - out->code_window);
	for (unsigned i = 0; i < TREC_PY_ID_PTRS; i++)
		out->code_ptrs[i] = (uint8_t)(ptrs[i] - out->code_window);
	out->code_adaptive = o->code_adaptive;
}

void trec_py_offset_range(const struct trec_py_offsets *o, struct trec_offset_range *out)
{
	memset(out, 0, sizeof(*out));
	out->lower1 = o->eval_start;
	out->upper1 = o->eval_end;
	out->lower2 = o->cold_start;
	out->upper2 = o->cold_end;
	out->program_index = TREC_PROG_UNWIND_PYTHON;
}

struct probe {
	int pid;
	struct trec_py_process *out;
	int ret;
	char last[4096];
	char *err;
	size_t errlen;
};

static int probe_mapping(void *ctx, const struct trec_py_mapping *m)
{
	struct probe *p = ctx;
	char path[4200];
	struct trec_pyelf e;
	uint64_t vaddr;
	int ret;

	/* Only the executable mapping of each file: it holds the eval loop. */
	if (!m->exec || !strcmp(p->last, m->path))
		return 0;
	snprintf(p->last, sizeof(p->last), "%s", m->path);
	trec_py_proc_path(p->pid, m->path, path, sizeof(path));
	ret = trec_py_detect(path, &p->out->offsets, p->err, p->errlen);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		p->ret = ret;
		return 1;
	}
	ret = trec_pyelf_open(&e, path);
	if (!ret) {
		ret = trec_pyelf_vaddr_of_offset(&e, m->pgoff, &vaddr);
		trec_pyelf_close(&e);
	}
	if (ret) {
		p->ret = fail(p->err, p->errlen, ret, "%s: mapping offset not in the file", m->path);
		return 1;
	}
	snprintf(p->out->path, sizeof(p->out->path), "%s", m->path);
	p->out->bias = m->start - vaddr;
	p->ret = 0;
	return 1;
}

int trec_py_probe_pid(int pid, struct trec_py_process *out, char *err, size_t errlen)
{
	struct probe p = { .pid = pid, .out = out, .ret = -ENOENT, .err = err, .errlen = errlen };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = trec_py_for_each_mapping(pid, probe_mapping, &p);
	if (ret < 0)
		return fail(err, errlen, ret, "pid %d: cannot read maps: %s", pid, strerror(-ret));
	if (p.ret)
		return p.ret == -ENOENT ? fail(err, errlen, -ENOENT, "pid %d: no CPython", pid) : p.ret;
	ret = trec_tsd_detect_pid(pid, &out->tsd);
	if (ret)
		return fail(err, errlen, ret, "pid %d: libc pthread_getspecific layout unknown", pid);
	trec_py_proc_info_init(&out->offsets, out->bias, &out->tsd, &out->info);
	return 0;
}
