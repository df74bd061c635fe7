#!/usr/bin/env bash
# A short run (EHFRAME_FUZZ_SECONDS, default 8) of the stack-delta
# extraction fuzz target (tests/fuzz/fuzz_ehframe.c) on small ELF files:
# programs built here with .eh_frame only, with .debug_frame only (no
# unwind tables, -g), with frame pointers and none, stripped, a shared
# object, and two of the system's own small files. Every seed must give
# deltas (so the target reaches past the ELF checks); any crash, leak,
# sanitizer report, broken entry order or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_ehframe "ELF stack-delta extraction"
cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) int rec(int n) { return n ? rec(n - 1) + 1 : 0; }
int main(int argc, char **argv) { int v[4] = { 3, 1, argc, 2 }; qsort(v, 4, sizeof(int), cmp);
	printf("%d\n", rec(v[0]) + (argv[0] != 0)); return 0; }
C
built=0
for opts in "-O2 -fomit-frame-pointer" "-O0 -fno-omit-frame-pointer" \
	"-O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables" "-Os -s" "-O2 -fPIC -shared"; do
	gcc $opts -o "$tmp/seeds/gcc$built" "$tmp/t.c" 2>/dev/null && built=$((built + 1))
done
[ "$built" = 5 ] && pass "5 seed programs built" || fail "5 seed programs built ($built)"
cp /bin/true "$tmp/seeds/true"
for f in /lib/x86_64-linux-gnu/libdl.so.2 /usr/lib/x86_64-linux-gnu/libdl.so.2; do
	[ -f "$f" ] && { cp "$f" "$tmp/seeds/libdl"; break; }
done
FUZZ_SEED_ENV=TREC_FUZZ_REQUIRE_DELTAS=1 \
	fuzz_seeds_then_run "ELF stack-delta extraction" "${EHFRAME_FUZZ_SECONDS:-8}" 262144
exit 0
