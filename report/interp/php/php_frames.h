/* SPDX-License-Identifier: MIT */
/*
 * PHP frames in treport: the INTERP_CODE records of subtype 4 (FORMAT.md
 * §12.3), kept by function address, name PHP frames
 * "Class::method (file:line)"; the line is the frame's own (BPF read it
 * from the opline).
 */
#ifndef RP_PHP_FRAMES_H
#define RP_PHP_FRAMES_H

#include "report/interp/interp.h"

extern const struct rp_interp_ops rp_php_interp;

#endif /* RP_PHP_FRAMES_H */
