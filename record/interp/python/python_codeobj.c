// SPDX-License-Identifier: MIT
/* Code object reading and PYCODE record writing; see python_codeobj.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "record/interp/interp_read.h"
#include "record/interp/python/python_codeobj.h"

/* Where the object's bytes come from: the live process, or a snapshot. */
struct mem {
	trec_py_read_fn read;
	void *ctx;
};

static int rd(const struct mem *m, uint64_t addr, void *buf, size_t len)
{
	return m->read(m->ctx, addr, buf, len);
}

static int rd_ptr(const struct mem *m, uint64_t addr, uint64_t *v)
{
	return rd(m, addr, v, sizeof(*v));
}

/* Appends code point cp as UTF-8. */
static size_t utf8(char *p, uint32_t cp)
{
	if (cp < 0x80) {
		p[0] = cp ? (char)cp : '?'; /* no NULs inside names */
		return 1;
	}
	if (cp < 0x800) {
		p[0] = (char)(0xc0 | cp >> 6);
		p[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		p[0] = (char)(0xe0 | cp >> 12);
		p[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		p[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp > 0x10ffff)
		cp = 0xfffd;
	p[0] = (char)(0xf0 | cp >> 18);
	p[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	p[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	p[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * A str object as UTF-8 (malloc'ed, NUL-terminated). Compact strings only
 * (all names and file names of code objects are); longer ones than the
 * format allows are cut.
 */
static int read_str(const struct mem *m, const struct trec_py_process *proc, uint64_t addr, char **out,
		    uint32_t *out_len)
{
	const struct trec_py_offsets *o = &proc->offsets;
	uint64_t type, length;
	uint32_t state, kind, n, max_chars = TREC_PYCODE_MAX_STR / 4;
	uint8_t *raw = NULL;
	char *s;
	size_t pos = 0;
	int err;

	*out = NULL;
	if (!addr)
		return -EINVAL;
	if ((err = rd_ptr(m, addr + 8, &type)) || (err = rd_ptr(m, addr + o->str_length, &length)) ||
	    (err = rd(m, addr + o->str_state, &state, sizeof(state))))
		return err;
	if (type != o->str_type_vaddr + proc->bias)
		return -EINVAL;
	kind = state >> 2 & 7;
	if (!(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL; /* not compact, or a kind we do not know */
	n = length > max_chars ? max_chars : (uint32_t)length;
	raw = malloc((size_t)n * kind + 1);
	s = malloc((size_t)n * 4 + 1);
	if (!raw || !s) {
		err = -ENOMEM;
		goto fail;
	}
	/* state.ascii: 1-byte data right after PyASCIIObject */
	err = rd(m, addr + ((state >> 6 & 1) ? o->str_ascii_data : o->str_compact_data), raw,
		 (size_t)n * kind);
	if (err)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t cp = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)raw)[i]
							     : ((uint32_t *)raw)[i];

		pos += utf8(s + pos, cp);
	}
	s[pos] = 0;
	free(raw);
	*out = s;
	*out_len = (uint32_t)pos;
	return 0;
fail:
	free(raw);
	free(s);
	return err;
}

static int read_bytes(const struct mem *m, const struct trec_py_process *proc, uint64_t addr, uint8_t **out,
		      uint32_t *out_len)
{
	const struct trec_py_offsets *o = &proc->offsets;
	uint64_t type, size;
	int err;

	*out = NULL;
	if (!addr)
		return -EINVAL;
	if ((err = rd_ptr(m, addr + 8, &type)) || (err = rd_ptr(m, addr + o->bytes_size, &size)))
		return err;
	if (type != o->bytes_type_vaddr + proc->bias || size > TREC_PYCODE_MAX_LINETABLE)
		return -EINVAL;
	*out = malloc(size ? size : 1);
	if (!*out)
		return -ENOMEM;
	err = rd(m, addr + o->bytes_data, *out, size);
	if (err) {
		free(*out);
		*out = NULL;
		return err;
	}
	*out_len = (uint32_t)size;
	return 0;
}

static uint64_t field_ptr(const uint8_t *obj, uint16_t off)
{
	uint64_t v;

	memcpy(&v, obj + off, sizeof(v));
	return v;
}

static int32_t field_int(const uint8_t *obj, uint16_t off)
{
	int32_t v;

	memcpy(&v, obj + off, sizeof(v));
	return v;
}

int trec_py_read_code(int pid, const struct trec_py_process *proc, uint64_t addr,
		      struct trec_pycode_owned *out)
{
	return trec_py_read_code_from(trec_interp_read_pid, &pid, (uint32_t)pid, proc, addr, out);
}

int trec_py_read_code_from(trec_py_read_fn read, void *ctx, uint32_t pid,
			   const struct trec_py_process *proc, uint64_t addr,
			   struct trec_pycode_owned *out)
{
	const struct trec_py_offsets *o = &proc->offsets;
	const struct mem mem = { read, ctx }, *m = &mem;
	uint8_t obj[512];
	int err;

	memset(out, 0, sizeof(*out));
	if (o->code_adaptive > sizeof(obj))
		return -EINVAL;
	err = rd(m, addr, obj, o->code_adaptive);
	if (err)
		return err;
	if (field_ptr(obj, 8) != o->code_type_vaddr + proc->bias)
		return -EINVAL;
	if ((err = read_str(m, proc, field_ptr(obj, o->code_filename), &out->filename,
			    &out->c.filename_len)) ||
	    (err = read_str(m, proc, field_ptr(obj, o->code_name), &out->name, &out->c.name_len)) ||
	    (err = read_str(m, proc, field_ptr(obj, o->code_qualname), &out->qualname,
			    &out->c.qualname_len)) ||
	    (err = read_bytes(m, proc, field_ptr(obj, o->code_linetable), &out->linetable,
			      &out->c.linetable_len))) {
		trec_pycode_owned_free(out);
		return err;
	}
	out->c.pid = pid;
	out->c.code_addr = addr;
	out->c.firstlineno = field_int(obj, o->code_firstlineno);
	{
		const __u32 ints[TREC_PY_ID_INTS] = {
			(uint32_t)field_int(obj, o->code_argcount),
			(uint32_t)field_int(obj, o->code_kwonlyargcount),
			(uint32_t)field_int(obj, o->code_flags),
			(uint32_t)out->c.firstlineno,
		};
		const __u64 ptrs[TREC_PY_ID_PTRS] = {
			field_ptr(obj, o->code_filename), field_ptr(obj, o->code_name),
			field_ptr(obj, o->code_qualname), field_ptr(obj, o->code_linetable),
		};

		out->c.object_id = trec_py_object_id(ints, ptrs);
	}
	out->c.py_major = (uint8_t)o->major;
	out->c.py_minor = (uint8_t)o->minor;
	out->c.filename = out->filename;
	out->c.name = out->name;
	out->c.qualname = out->qualname;
	out->c.linetable = out->linetable;
	return 0;
}

void trec_pycode_owned_free(struct trec_pycode_owned *c)
{
	free(c->filename);
	free(c->name);
	free(c->qualname);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}

int trec_pycode_note(struct trec_interp_seen *seen, trec_pycode_write_fn write, void *ctx,
		     uint32_t pid, const struct trec_py_process *proc, uint64_t addr,
		     uint32_t object_id)
{
	struct trec_pycode_owned code;
	struct trec_blob blob;
	uint8_t *buf;
	size_t len;
	int err;

	if (!addr)
		return -EINVAL;
	/* Remember the attempt whatever happens: a failed read is not
	 * retried for every sample. */
	err = trec_interp_seen_note(seen, addr, object_id);
	if (err)
		return err < 0 ? err : 0;
	err = trec_py_read_code((int)pid, proc, addr, &code);
	if (err)
		return err;
	if (object_id && code.c.object_id != object_id) {
		trec_pycode_owned_free(&code);
		return -ESTALE;
	}
	/* BPF could not read the object: describe what is there now under
	 * its real id too, so that later samples find it. */
	if (!object_id && (err = trec_interp_seen_note(seen, addr, code.c.object_id))) {
		trec_pycode_owned_free(&code);
		return err < 0 ? err : 0;
	}
	err = trec_pycode_encode(&code.c, &buf, &len);
	trec_pycode_owned_free(&code);
	if (err)
		return err;
	blob.file_id = addr;
	blob.subtype = TREC_PYCODE_SUBTYPE_V1;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = write(ctx, TREC_REC_PYCODE, &blob);
	free(buf);
	return err ? err : 1;
}
