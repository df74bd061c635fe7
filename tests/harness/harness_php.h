/* SPDX-License-Identifier: MIT */
/*
 * The PHP part of a harness case: fills interpreter_offsets and php_procs
 * with trecord's own detection, describes the trace's PHP frames as
 * trecord does (record/interp/php/php_code.c, reading the live process or
 * the core dump), names them as treport does (report/interp/php/), and
 * checks them against the stack the script wrote with debug_backtrace():
 * the case's reference frames ("pyframe" lines, innermost first).
 */
#ifndef TREC_HARNESS_PHP_H
#define TREC_HARNESS_PHP_H

#include <stdbool.h>
#include "harness_case.h"
#include "harness_verdict.h"

struct harness_php;

struct harness_php *harness_php_new(struct harness_env *env);
void harness_php_free(struct harness_php *p);

/* An executable mapping of pid (live or from the case): sets pid up when
 * path is a Zend engine trecord supports. 0 or a negative errno. */
int harness_php_mapping(struct harness_php *p, uint32_t pid, uint64_t file_id, const char *path,
			uint64_t bias);

/* Whether a Zend engine was found (php_procs has an entry). */
bool harness_php_found(const struct harness_php *p);

/* A PHP frame of the trace and the index of the native frame after it. */
/*
 * The PHP verdict of case `name`: every PHP frame described (from the
 * live process or the captured memory), the frames equal to the script's
 * own stack (function, file, line, in order), each run of them right
 * before a VM loop frame of gdb's backtrace (gdb's physical frames
 * c->frames[0..ng): execute_ex, or its nameless .cold part) and ending at
 * a frame the script says C code entered.
 * Prints one PASS/FAIL line and the trace; true when it passes.
 */
bool harness_php_verdict(struct harness_php *p, const struct harness_case *c, const char *name,
			 const struct harness_iframe *php, size_t nphp, size_t ng, bool live);

#endif /* TREC_HARNESS_PHP_H */
