// SPDX-License-Identifier: MIT
#include "report/output/output.h"
int rp_output_firefox(const struct rp_report *r, FILE *out) { (void)r; (void)out; return -1; }
