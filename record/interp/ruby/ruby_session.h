/* SPDX-License-Identifier: MIT */
/* Ruby (MRI) support as a trecord interpreter backend (record/interp/interp.h). */
#ifndef TREC_RUBY_SESSION_H
#define TREC_RUBY_SESSION_H

#include "record/interp/interp.h"

extern const struct trec_interp_ops trec_ruby_interp;

#endif /* TREC_RUBY_SESSION_H */
