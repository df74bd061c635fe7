/* SPDX-License-Identifier: MIT */
/*
 * CPython 3.8-3.10 detection, the part python_detect.c does not share:
 * those versions have no Py_Version, and their PyFrameObject layout (from
 * the version table) is checked against PyFrame_Type in the file itself.
 */
#ifndef TREC_PYTHON_DETECT_OLD_H
#define TREC_PYTHON_DETECT_OLD_H

#include <stddef.h>
#include <stdint.h>
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_elf.h"

/*
 * The version of a CPython without Py_Version, from the C API symbols each
 * minor version added (PyCode_NewWithPosOnlyArgs 3.8, PyThreadState_GetFrame
 * 3.9, Py_IsNone 3.10). The micro version is not in the file in a form we
 * can find; it reads as 0. 0 with *version_hex = 0x03MM0000, or -ENOTSUP.
 */
int trec_py_old_version(struct trec_pyelf *e, uint32_t *version_hex);

/*
 * Checks the table's frame layout in o against PyFrame_Type: its
 * tp_basicsize, and the f_back, f_code (and, where it is a member, f_lasti)
 * offsets in its tp_members. 0 or -ENOTSUP with a reason in err.
 */
int trec_py_old_check_frame(struct trec_pyelf *e, const struct trec_py_offsets *o, char *err,
			    size_t errlen);

#endif /* TREC_PYTHON_DETECT_OLD_H */
