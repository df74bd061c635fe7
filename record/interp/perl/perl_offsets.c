// SPDX-License-Identifier: MIT
/* The per-version offsets table; see perl_offsets.h. */
#include <stddef.h>
#include "record/interp/perl/perl_offsets.h"

/* Only versions whose headers were compiled into the probe are here:
 * a wrong offset would walk garbage. */
static const struct trec_perl_offsets rows[] = {
	{
		.revision = 5, .version = 36, /* Debian 12 */
		.bpf = {
			.version = 0x0524,
			.interp_curcop = 0xd0, .interp_curstackinfo = 0xe0, .interp_op = 0x08,
			.op_ppaddr = 0x10,
			.si_cxstack = 0x08, .si_prev = 0x10, .si_cxix = 0x20, .si_type = 0x2c,
			.cx_size = 0x68, .cx_type = 0x00, .cx_oldcop = 0x10,
			.cx_sub_cv = 0x48, .cx_sub_retop = 0x30,
			.cop_line = 0x24,
			.sv_any = 0x00, .sv_flags = 0x0c, .sv_u = 0x10,
			.xcv_flags = 0x5c, .xcv_gv = 0x38, .gp_egv = 0x38,
		},
		.cop_file = 0x30, .xcv_stash = 0x20,
		.xgv_namehek = 0x20, .xgv_stash = 0x28,
		.hek_len = 0x04, .hek_key = 0x08,
		.xhv_aux = 0x20, .aux_name = 0x00, .aux_name_count = 0x1c,
	},
};

const struct trec_perl_offsets *trec_perl_offsets_for(unsigned revision, unsigned version)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].revision == revision && rows[i].version == version)
			return &rows[i];
	return NULL;
}

const struct trec_perl_offsets *trec_perl_offsets_all(unsigned *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}
