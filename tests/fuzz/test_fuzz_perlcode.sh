#!/usr/bin/env bash
# A short run (PERLCODE_FUZZ_SECONDS, default 10) of the Perl INTERP_CODE
# payload fuzz target, seeded with a real payload and its truncations.
# Any crash, leak, sanitizer report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"
secs=${PERLCODE_FUZZ_SECONDS:-10}
fuzzer=$TREC_ROOT/build/fuzz_perlcode

make -s -C "$TREC_ROOT" build/fuzz_perlcode >/dev/null || { fail "build the perlcode fuzz target"; exit 1; }
# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
tmp=$(mktemp -d /tmp/trec-fuzzpl.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus" "$tmp/work"
# A payload as FORMAT.md §12.1 lays it out: pid 7, cop, key (line 42 in
# the top 16 bits), line 42, reserved, "main", "descend", "/x/chain.pl".
python3 - "$tmp/corpus" <<'PY'
import struct, sys
def s(b): return struct.pack("<I", len(b)) + b + b"\0"
p = struct.pack("<IQQII", 7, 0x5555aaaa0000, (42 << 48) | 0x5555bbbb0001, 42, 0)
p += s(b"main") + s(b"descend") + s(b"/x/chain.pl")
open(sys.argv[1] + "/full", "wb").write(p)
open(sys.argv[1] + "/cut", "wb").write(p[:40])
PY
if "$fuzzer" -runs=0 "$tmp/corpus" >"$tmp/seeds.log" 2>&1; then
	pass "perlcode fuzz seeds run clean"
else
	fail "perlcode fuzz seeds run clean"; tail -20 "$tmp/seeds.log"
fi
# A fixed seed: the same inputs on every run (see test_fuzz_short.sh).
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-max_len=16384 -artifact_prefix="$tmp/" -print_final_stats=1 \
	"$tmp/work" "$tmp/corpus" >"$tmp/fuzz.log" 2>&1
fuzz_verdict "$?" "$tmp" "perlcode payload fuzzing for ${secs}s"
