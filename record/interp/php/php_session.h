/* SPDX-License-Identifier: MIT */
/*
 * PHP (Zend) support for a trecord session, behind record/interp/interp.h:
 * detects the engine in mapped files (php_detect.h), sets each PHP
 * process up in php_procs and interpreter_offsets, and describes the
 * functions samples name in INTERP_CODE records (php_code.h).
 */
#ifndef TREC_PHP_SESSION_H
#define TREC_PHP_SESSION_H

#include "record/interp/interp.h"

extern const struct trec_interp_ops trec_php_interp;

#endif /* TREC_PHP_SESSION_H */
