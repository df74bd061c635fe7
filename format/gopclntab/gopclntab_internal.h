/* SPDX-License-Identifier: MIT */
/* Internal to the .gopclntab parser (gopclntab*.c). */
#ifndef TREC_RECORD_ARCHIVE_GOPCLNTAB_INTERNAL_H
#define TREC_RECORD_ARCHIVE_GOPCLNTAB_INTERNAL_H

#include "format/gopclntab/gopclntab.h"

#define GOPCLN_MAX_REGIONS 64u
#define GOPCLN_MAX_FUNCS (1u << 24)
/* Go emits at most a handful of pcdata/funcdata tables per function. */
#define GOPCLN_MAX_PCDATA 64u
/* An inline tree index beyond this is damage (the runtime's own bound). */
#define GOPCLN_MAX_INL_INDEX (1u << 20)

enum { PCDATA_INL_TREE_INDEX = 2, FUNCDATA_INL_TREE = 3 };

/* [lo, hi) byte offsets into the table. */
struct gopcln_span {
	uint64_t lo, hi;
};

/* One decoded step of a pc-value table: val holds over [lo, hi). */
struct gopcln_run {
	uint64_t lo, hi;
	int32_t val;
};

/* A decoded pc-value table, reused from function to function. */
struct gopcln_runs {
	struct gopcln_run *v;
	size_t n, cap;
};

/* The _func record of one function, the fields the parser uses. */
struct gopcln_funcrec {
	uint64_t entry, end;
	uint64_t rec;           /* table offset of the record */
	uint32_t nameoff, pcsp, pcfile, pcln, npcdata, cu_offset;
	uint8_t nfuncdata;
	uint8_t flag;           /* funcFlag (Go 1.17+; Go 1.16's pad byte: 0) */
	uint64_t fixed_len;     /* bytes before the pcdata offsets */
};

struct gopclntab {
	const uint8_t *tab; /* the table's bytes, inside one region */
	uint64_t len, vaddr;
	int layout;         /* 116, 118, 120 */
	uint8_t quantum, ptrsize;
	uint64_t nfunc, text_start;
	struct gopcln_span funcnames, cutab, filetab, pctab, pcln;
	uint64_t functab_entsize;
	uint64_t gofunc;    /* Go 1.18+: base of funcdata offsets; 0 unknown */
	struct gopcln_region regions[GOPCLN_MAX_REGIONS];
	size_t nregions;
	uint64_t budget;    /* pc-value steps left for whole-table walks */
	struct gopcln_runs files, lines, inl, sp; /* scratch of the walk */
};

/* gopclntab.c */
bool gopcln_read(const struct gopclntab *g, uint64_t off, size_t n, uint64_t *v);
bool gopcln_read_vaddr(const struct gopclntab *g, uint64_t vaddr, size_t n, uint64_t *v);
const char *gopcln_string(const struct gopclntab *g, struct gopcln_span s, uint64_t off);
int gopcln_func_record(const struct gopclntab *g, size_t i, struct gopcln_funcrec *r);
const char *gopcln_file_name(const struct gopclntab *g, const struct gopcln_funcrec *r,
			     int32_t fileno);
uint32_t gopcln_pcdata_offset(const struct gopclntab *g, const struct gopcln_funcrec *r,
			      uint32_t table);
uint64_t gopcln_funcdata_vaddr(const struct gopclntab *g, const struct gopcln_funcrec *r,
			       uint32_t index);

/* gopclntab_moduledata.c: finds moduledata in writable regions; fills
 * *text and *gofunc (0 when not found). */
void gopcln_find_moduledata(const struct gopclntab *g, uint64_t funcname_off,
			    uint64_t cu_off, uint64_t *text, uint64_t *gofunc);

#endif /* TREC_RECORD_ARCHIVE_GOPCLNTAB_INTERNAL_H */
