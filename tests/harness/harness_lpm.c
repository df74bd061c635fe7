// SPDX-License-Identifier: MIT
/*
 * The pid_page_to_mapping_info LPM trie, emulated: entries are kept as
 * written (big-endian keys), and a lookup tries every prefix length from
 * the key's down to 32 (the pid alone), masking the address each time.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "record/procs/lpm.h"

static uint64_t prefix_mask(uint32_t prefix_len)
{
	uint32_t bits = prefix_len - 32;
	return bits == 0 ? 0 : ~0ULL << (64 - bits);
}

static struct harness_lpm_entry *find(struct harness_env *e, const struct trec_pid_page_key *k)
{
	for (size_t i = 0; i < e->num_lpm; i++)
		if (memcmp(&e->lpm[i].k, k, sizeof(*k)) == 0)
			return &e->lpm[i];
	return NULL;
}

int harness_lpm_update(struct harness_env *e, const struct trec_pid_page_key *k,
		       const struct trec_pid_page_value *v)
{
	if (k->prefix_len < 32 || k->prefix_len > 96)
		return -EINVAL;
	struct harness_lpm_entry *x = find(e, k);
	if (!x) {
		if (e->num_lpm == e->cap_lpm) {
			size_t cap = e->cap_lpm ? 2 * e->cap_lpm : 64;
			struct harness_lpm_entry *n = realloc(e->lpm, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			e->lpm = n;
			e->cap_lpm = cap;
		}
		x = &e->lpm[e->num_lpm++];
		x->k = *k;
	}
	x->v = *v;
	return 0;
}

int harness_lpm_delete(struct harness_env *e, const struct trec_pid_page_key *k)
{
	struct harness_lpm_entry *x = find(e, k);
	if (!x)
		return -ENOENT;
	*x = e->lpm[--e->num_lpm];
	return 0;
}

struct trec_pid_page_value *harness_lpm_lookup(struct harness_env *e,
					       const struct trec_pid_page_key *k)
{
	uint64_t addr = be64toh(k->page_be);
	if (k->prefix_len < 32 || k->prefix_len > 96)
		return NULL;
	for (uint32_t plen = k->prefix_len; plen >= 32; plen--) {
		uint64_t masked = addr & prefix_mask(plen);
		for (size_t i = 0; i < e->num_lpm; i++) {
			const struct harness_lpm_entry *x = &e->lpm[i];
			if (x->k.prefix_len == plen && x->k.pid_be == k->pid_be &&
			    (be64toh(x->k.page_be) & prefix_mask(plen)) == masked)
				return &e->lpm[i].v;
		}
	}
	return NULL;
}

int harness_lpm_add_range(struct harness_env *e, uint32_t pid, uint64_t start, uint64_t end,
			  uint64_t file_id, uint64_t bias, uint8_t unwinder)
{
	struct trec_lpm_prefix pre[TREC_LPM_MAX_PREFIXES];
	size_t n = trec_lpm_split(start, end, pre);
	struct trec_pid_page_value v = {
		.file_id = file_id,
		.bias_and_unwinder = (bias & TREC_BIAS_MASK) | ((uint64_t)unwinder << TREC_UNWINDER_SHIFT),
	};
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct trec_pid_page_key k;

		trec_lpm_key(&k, pid, pre[i].addr, pre[i].bits);
		err = harness_lpm_update(e, &k, &v);
	}
	return err;
}
