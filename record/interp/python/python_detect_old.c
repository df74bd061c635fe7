// SPDX-License-Identifier: MIT
/* CPython 3.8-3.10 version and frame checks; see python_detect_old.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "record/interp/python/python_detect_old.h"

/* PyTypeObject / PyMemberDef on 64-bit (as in python_detect.c). */
#define TP_NAME 24
#define TP_BASICSIZE 32
#define TP_MEMBERS 240
#define MEMBERDEF_SIZE 40
#define MEMBERDEF_TYPE 8
#define MEMBERDEF_OFFSET 16
#define T_INT 1
#define T_OBJECT 6

/* sizeof(PyFrameObject) per minor version (DWARF of the pyenv builds). */
static const struct {
	unsigned minor;
	uint64_t frame_size;
} frame_sizes[] = { { 8, 368 }, { 9, 368 }, { 10, 360 } };

static int has(struct trec_pyelf *e, const char *sym)
{
	uint64_t addr;

	return trec_pyelf_symbol(e, sym, &addr, NULL) == 0;
}

int trec_py_old_version(struct trec_pyelf *e, uint32_t *version_hex)
{
	unsigned minor;

	if (!has(e, "PyCode_NewWithPosOnlyArgs"))
		return -ENOTSUP;
	minor = has(e, "Py_IsNone") ? 10 : has(e, "PyThreadState_GetFrame") ? 9 : 8;
	*version_hex = 0x03000000u | minor << 16;
	return 0;
}

static int fail(char *err, size_t errlen, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "PyFrame_Type does not match the 3.8-3.10 frame table: %s", what);
	return -ENOTSUP;
}

int trec_py_old_check_frame(struct trec_pyelf *e, const struct trec_py_offsets *o, char *err,
			    size_t errlen)
{
	uint64_t type, p, size, table, want_size = 0;
	unsigned seen = 0;
	char name[32];

	for (unsigned i = 0; i < sizeof(frame_sizes) / sizeof(frame_sizes[0]); i++)
		if (frame_sizes[i].minor == o->minor)
			want_size = frame_sizes[i].frame_size;
	if (trec_pyelf_symbol(e, "PyFrame_Type", &type, NULL) ||
	    trec_pyelf_read_ptr(e, type + TP_NAME, &p) ||
	    trec_pyelf_read_str(e, p, name, sizeof(name)) || strcmp(name, "frame") ||
	    trec_pyelf_read(e, type + TP_BASICSIZE, &size, sizeof(size)))
		return fail(err, errlen, "no PyFrame_Type");
	if (size != want_size)
		return fail(err, errlen, "tp_basicsize");
	if (trec_pyelf_read_ptr(e, type + TP_MEMBERS, &table) || !table)
		return fail(err, errlen, "no tp_members");
	for (unsigned i = 0; i < 32; i++) {
		uint64_t at = table + i * MEMBERDEF_SIZE, name_p, off;
		int32_t mtype;

		if (trec_pyelf_read_ptr(e, at, &name_p))
			return fail(err, errlen, "tp_members unreadable");
		if (!name_p)
			break;
		if (trec_pyelf_read_str(e, name_p, name, sizeof(name)) == -EFAULT ||
		    trec_pyelf_read(e, at + MEMBERDEF_TYPE, &mtype, sizeof(mtype)) ||
		    trec_pyelf_read(e, at + MEMBERDEF_OFFSET, &off, sizeof(off)))
			return fail(err, errlen, "tp_members unreadable");
		if (!strcmp(name, "f_back")) {
			if (mtype != T_OBJECT || off != o->frame_previous)
				return fail(err, errlen, "f_back");
			seen |= 1;
		} else if (!strcmp(name, "f_code")) {
			if (mtype != T_OBJECT || off != o->frame_code)
				return fail(err, errlen, "f_code");
			seen |= 2;
		} else if (!strcmp(name, "f_lasti")) {
			/* a member in 3.8 and 3.9; a getter in 3.10 */
			if (mtype != T_INT || off != o->frame_instr)
				return fail(err, errlen, "f_lasti");
		}
	}
	return seen == 3 ? 0 : fail(err, errlen, "f_back or f_code missing");
}
