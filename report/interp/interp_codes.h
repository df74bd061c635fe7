/* SPDX-License-Identifier: MIT */
/*
 * The store of code descriptions every interpreter backend keeps: by code
 * address, each description tagged with the pid that wrote it and the key
 * (object id, statement key) a frame must carry to match it. The backend
 * owns what a description is; the store only chains and finds them.
 */
#ifndef RP_INTERP_CODES_H
#define RP_INTERP_CODES_H

#include <stdbool.h>
#include <stdint.h>
#include "trec_format.h"

struct rp_codes;

/* free_desc frees one description with all it owns. */
struct rp_codes *rp_codes_new(void (*free_desc)(void *desc));
void rp_codes_free(struct rp_codes *s); /* NULL: nothing */
/* Adds desc (the store owns it from now on); out of memory exits. */
void rp_codes_add(struct rp_codes *s, uint64_t addr, uint32_t pid, uint64_t key, void *desc);
/* The description of addr with this key written by pid; else one written
 * by another pid (a fork shares its parent's code). zero_any: key 0 means
 * the BPF side could not read the object, so any key will do, but only
 * from pid itself. NULL store or none: NULL. */
void *rp_codes_find(const struct rp_codes *s, uint32_t pid, uint64_t addr, uint64_t key,
		    bool zero_any);
/* An owned copy of b's payload (at least one byte: never NULL). */
uint8_t *rp_codes_copy_payload(const struct trec_blob *b);

#endif /* RP_INTERP_CODES_H */
