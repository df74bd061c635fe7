/* SPDX-License-Identifier: MIT */
/*
 * Ruby frames in treport: the INTERP_CODE records of subtype 3 a
 * recording holds (one per iseq trecord described), and the lookup of a
 * Ruby frame (iseq address, instruction position, object id) to
 * "label (file:line)". The rp_interp_ops backend of report/interp/interp.c.
 */
#ifndef RP_RUBY_FRAMES_H
#define RP_RUBY_FRAMES_H

#include "report/interp/interp.h"

extern const struct rp_interp_ops rp_ruby_interp;

#endif /* RP_RUBY_FRAMES_H */
