/* SPDX-License-Identifier: MIT */
/* Writes a record the reader returned, whatever its type, to a writer. */
#ifndef TREC_FLIGHT_RECORD_COPY_H
#define TREC_FLIGHT_RECORD_COPY_H

#include "trec_format.h"

/* The trec_write_* call of rec's type; -EINVAL for a type it cannot write. */
int trec_record_copy(struct trec_writer *w, const struct trec_record *rec);

#endif /* TREC_FLIGHT_RECORD_COPY_H */
