/* SPDX-License-Identifier: MIT */
/* trecord's verbose (-v) messages: "trecord: ..." on stderr. */
#ifndef TREC_LOG_H
#define TREC_LOG_H

#include <stdbool.h>

/* Prints only when verbose; a newline is added. */
void trec_vlog(bool verbose, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TREC_LOG_H */
