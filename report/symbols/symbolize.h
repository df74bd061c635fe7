/* SPDX-License-Identifier: MIT */
/*
 * Frame symbolization with a cache per (file id, address): each distinct
 * frame is resolved once into an rp_sym (function, inlined frames with
 * file:line, dso, offset), however many samples hold it.
 */
#ifndef RP_SYMBOLIZE_H
#define RP_SYMBOLIZE_H

#include "report/model.h"
#include "report/symbols/symsrc.h"

enum rp_sym_kind {
	RP_SYM_NATIVE = 0,
	RP_SYM_KERNEL,
	RP_SYM_ERROR,
	RP_SYM_INTERP, /* an interpreted frame (report/interp/interp.h) */
};

struct rp_line {
	uint32_t func; /* string ids */
	uint32_t file; /* 0: unknown */
	uint32_t line;
};

struct rp_sym {
	uint8_t kind;       /* enum rp_sym_kind */
	bool resolved;      /* a function name is known */
	uint8_t flags;      /* the frame's flags */
	uint8_t lang;       /* RP_SYM_INTERP: the frame kind (report/interp/interp.h) */
	uint32_t dso;       /* path, "[kernel.kallsyms]", "[ext4]" or "[unknown]" */
	uint32_t name;      /* function (symbol) name, "[unknown]", "[error: X]" */
	uint32_t label;     /* name, or "dso+0xaddr" when unresolved */
	uint64_t addr;      /* the frame's address as recorded */
	uint64_t sym_off;   /* addr - symbol start; valid if resolved */
	uint64_t file_id;   /* 0 for kernel and unresolved absolute frames */
	/* lines[first .. first+nlines): innermost inlined function first, the
	 * last is the function itself (func == name). Always >= 1. */
	uint32_t first_line, nlines;
};

struct rp_symopts {
	bool demangle;
	bool inline_frames; /* expand inlined frames (DWARF) */
	const char *symfs;
	const char *const *debug_dirs; /* NULL-terminated */
	/* Sources in the order tried; nsources 0: embedded, local, debug. */
	enum rp_source sources[RP_MAX_SYMSRC];
	size_t nsources;
	bool quiet;         /* no warnings on stderr */
};

struct rp_symbolizer;

struct rp_symbolizer *rp_symbolizer_new(struct rp_model *m, const struct rp_symopts *o);
void rp_symbolizer_free(struct rp_symbolizer *s);

/*
 * The symbol id of one frame. pid and time_ns place absolute frames
 * (raw runtime pcs) in the process's mappings.
 */
uint32_t rp_symbolize(struct rp_symbolizer *s, uint32_t rec, uint32_t pid, uint64_t time_ns,
		      const struct rp_frame *f);
const struct rp_sym *rp_sym_get(const struct rp_symbolizer *s, uint32_t id);
const struct rp_line *rp_sym_lines(const struct rp_symbolizer *s, const struct rp_sym *sym);
size_t rp_symbolizer_count(const struct rp_symbolizer *s);

/*
 * Symbolizes a whole stack into out[] (outermost first: user root ... user
 * leaf, then kernel outermost ... kernel leaf). Returns the count.
 * out must hold nkernel + nuser ids.
 */
uint32_t rp_symbolize_stack(struct rp_symbolizer *s, const struct rp_agg *a, uint32_t *out);

/* The name of an error code ("NATIVE_STACK_DELTA_INVALID"), or NULL. */
const char *rp_error_name(uint64_t code);

#endif /* RP_SYMBOLIZE_H */
