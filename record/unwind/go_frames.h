/* SPDX-License-Identifier: MIT */
/*
 * Rules for the prologue and epilogues of one Go function (go_frames.c).
 */
#ifndef TREC_GO_FRAMES_H
#define TREC_GO_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include "record/unwind/ehframe.h"

/* The function at [entry, end), whose bytes are code[0, end - entry):
 * CFA rules where rbp is not its frame pointer, pushed to out; none if
 * its prologue is not gc's. 0 or -ENOMEM. */
int trec_go_frame_rows(const uint8_t *code, uint64_t entry, uint64_t end, struct trec_rows *out);
/* The len bytes at code start with a stack check or a frame's set-up. */
bool trec_go_has_prologue(const uint8_t *code, uint64_t len);

#endif /* TREC_GO_FRAMES_H */
