/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer: objects, arrays, keys and values with the
 * commas placed for the caller, strings escaped and made valid UTF-8
 * (a byte that does not start or continue a valid sequence becomes
 * U+FFFD), output to a FILE, gzipped on request (zlib).
 */
#ifndef RP_JSON_WRITER_H
#define RP_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RP_JW_DEPTH 32

struct rp_jw;

struct rp_jw *rp_jw_open(FILE *out, bool gzip);
/* Flushes, ends the gzip stream and frees jw. 0, or -1 if any write failed. */
int rp_jw_close(struct rp_jw *jw);

void rp_jw_obj(struct rp_jw *jw);  /* { */
void rp_jw_arr(struct rp_jw *jw);  /* [ */
void rp_jw_end(struct rp_jw *jw);  /* } or ] */
void rp_jw_key(struct rp_jw *jw, const char *key);

void rp_jw_str(struct rp_jw *jw, const char *s);
void rp_jw_u64(struct rp_jw *jw, uint64_t v);
void rp_jw_i64(struct rp_jw *jw, int64_t v);
/* A decimal fraction: v / 10^digits, exactly, trailing zeros dropped
 * (milliseconds from nanoseconds: rp_jw_frac(jw, ns, 6)). */
void rp_jw_frac(struct rp_jw *jw, uint64_t v, unsigned digits);
void rp_jw_bool(struct rp_jw *jw, bool v);
void rp_jw_null(struct rp_jw *jw);
/* A value written as is (a number or literal the caller formatted). */
void rp_jw_raw(struct rp_jw *jw, const char *s);

#endif /* RP_JSON_WRITER_H */
