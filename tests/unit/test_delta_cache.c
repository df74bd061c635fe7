// SPDX-License-Identifier: MIT
/* The persistent stack-delta cache (record/unwind/delta_cache.h): the
 * entry format round-trips; every damaged, truncated, foreign or
 * out-of-range entry is refused; entries on disk are found by build-id,
 * and a damaged one is ignored, not used. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "record/procs/file_id.h"
#include "record/unwind/delta_cache.h"
#include "unit_check.h"

static const uint8_t bid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

static struct trec_delta_entry entries[] = {
	{ .addr = 0x1000, .info = { .cfa_reg = TREC_REG_SP, .cfa_param = 8 } },
	{ .addr = 0x1004, .info = { .cfa_reg = TREC_REG_SP, .cfa_param = 16, .fp_rule = TREC_FP_AT_CFA, .fp_param = -16 } },
	{ .addr = 0x1010, .info = { .cfa_reg = TREC_REG_FP, .cfa_param = 16, .flags = TREC_UNWIND_F_DEREF_CFA | 0x10 } },
	{ .addr = 0x2000, .command = TREC_UNWIND_COMMAND | TREC_CMD_PLT },
	{ .addr = 0x3000, .command = TREC_UNWIND_COMMAND | TREC_CMD_STOP },
};
static const struct trec_file_deltas deltas = { .num = 5, .entries = entries, .fdes = 3, .unsupported_rules = 1 };

static int parse(const uint8_t *b, size_t n, struct trec_file_deltas *d)
{
	char why[160];

	return trec_delta_cache_parse(b, n, bid, sizeof(bid), d, why, sizeof(why));
}

static bool same(const struct trec_file_deltas *a, const struct trec_file_deltas *b)
{
	return a->num == b->num && a->fdes == b->fdes && a->unsupported_rules == b->unsupported_rules &&
	       !memcmp(a->entries, b->entries, a->num * sizeof(*a->entries));
}

/* Rewrites the trailing CRC so a structural change is what gets tested. */
static void fix_crc(uint8_t *b, size_t n)
{
	uint32_t c = crc32(0, b, n - 4);

	for (int i = 0; i < 4; i++)
		b[n - 4 + i] = c >> (8 * i);
}

static void codec(void)
{
	struct trec_file_deltas d;
	uint8_t *b, *c;
	size_t n, bad_flip = 0, bad_trunc = 0;
	int err = trec_delta_cache_encode(&deltas, bid, sizeof(bid), &b, &n);

	CHECK("encode", !err && n == 8 + 4 + 4 + 20 + 24 + 5 * 24 + 4);
	if (err)
		return;
	CHECK("round trip", !parse(b, n, &d) && same(&d, &deltas));
	free(d.entries);
	c = malloc(n);
	for (size_t i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(c, b, n);
			c[i] ^= 1 << bit;
			bad_flip += parse(c, n, &d) != -EINVAL;
			if (!d.entries)
				continue;
			free(d.entries);
		}
	CHECK("every single-bit flip is refused", bad_flip == 0);
	for (size_t len = 0; len < n; len++)
		bad_trunc += parse(b, len, &d) != -EINVAL;
	CHECK("every truncation is refused", bad_trunc == 0);
	uint8_t other[20] = { 9 };
	char why[160];
	CHECK("another build-id is refused",
	      trec_delta_cache_parse(b, n, other, sizeof(other), &d, why, sizeof(why)) == -EINVAL);

	memcpy(c, b, n);
	c[8] = 2; /* version */
	fix_crc(c, n);
	CHECK("another version is refused", parse(c, n, &d) == -EINVAL);
	memcpy(c, b, n);
	c[36 + 24 + 3 * 24 + 1] = 0; /* entry 3's addr 0x2000 -> 0 */
	fix_crc(c, n);
	CHECK("unsorted entries are refused", parse(c, n, &d) == -EINVAL);
	memcpy(c, b, n);
	c[36 + 24 + 10] = 7; /* entry 0's cfa_reg */
	fix_crc(c, n);
	CHECK("an out-of-range rule is refused", parse(c, n, &d) == -EINVAL);
	memcpy(c, b, n);
	c[36 + 24 + 3 * 24 + 8] = 9; /* entry 3's command: not a known one */
	fix_crc(c, n);
	CHECK("an unknown command is refused", parse(c, n, &d) == -EINVAL);
	memcpy(c, b, n);
	c[36 + 7] = 0x80; /* num: 2^63 */
	fix_crc(c, n);
	CHECK("a huge count is refused", parse(c, n, &d) == -EINVAL);
	free(c);
	free(b);
}

/* The real entry files, under a temporary TREC_CACHE_DIR. */
static void files(void)
{
	char dir[] = "/tmp/trec-dcache.XXXXXX", path[4200], cmd[4300];
	struct trec_file_deltas d;
	struct trec_file f;
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), plain;
	char plain_path[] = "/tmp/trec-dcache-plain.XXXXXX";

	if (!mkdtemp(dir) || self < 0) {
		CHECK("setup", false);
		return;
	}
	setenv("TREC_CACHE_DIR", dir, 1);
	CHECK("the cache dir comes from TREC_CACHE_DIR",
	      !trec_delta_cache_dir(path, sizeof(path)) && !strcmp(path, dir));
	CHECK("a miss is -ENOENT", trec_delta_cache_get(dir, self, &d, true) == -ENOENT);
	CHECK("put", trec_delta_cache_put(dir, self, &deltas) == 0);
	CHECK("get finds it by build-id", !trec_delta_cache_get(dir, self, &d, true) && same(&d, &deltas));
	free(d.entries);

	/* Damage the entry on disk: ignored, with a warning. */
	if (!trec_file_describe(self, "", &f)) {
		int n = snprintf(path, sizeof(path), "%s/" TREC_DELTA_CACHE_SUBDIR "/", dir);

		for (uint32_t i = 0; i < f.build_id_len; i++)
			n += snprintf(path + n, sizeof(path) - n, "%02x", f.build_id[i]);
		trec_file_release(&f);
		snprintf(cmd, sizeof(cmd), "printf 'X' | dd of=%s bs=1 seek=60 conv=notrunc 2>/dev/null", path);
		CHECK("damage the entry", system(cmd) == 0);
		CHECK("a damaged entry is not used", trec_delta_cache_get(dir, self, &d, false) == -EINVAL);
	}
	plain = mkstemp(plain_path);
	CHECK("a file without a build-id is not cached",
	      plain >= 0 && write(plain, "not ELF", 7) == 7 &&
		      trec_delta_cache_put(dir, plain, &deltas) == -ENOENT);
	close(plain);
	unlink(plain_path);
	close(self);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK("cleanup", system(cmd) == 0);
}

int main(void)
{
	codec();
	files();
	return failures != 0;
}
