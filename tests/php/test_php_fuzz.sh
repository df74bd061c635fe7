#!/usr/bin/env bash
# A short run (FUZZ_SHORT_SECONDS, default 5) of the PHP INTERP_CODE
# payload decoder's fuzz target (tests/fuzz/fuzz_phpcode.c), seeded with
# a valid payload and its truncations. Any crash, sanitizer report,
# accepted payload that does not re-encode to itself, or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"
fuzzer=$TREC_ROOT/build/fuzz_phpcode
secs=${FUZZ_SHORT_SECONDS:-5}

make -s -C "$TREC_ROOT" build/fuzz_phpcode >/dev/null || { fail "build the fuzz target"; exit 1; }
tmp=$(mktemp -d /tmp/trec-phpfuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/seeds" "$tmp/work"
# FORMAT.md §12.3: Walker::run of /srv/chain.php, lines 35-45.
python3 - "$tmp/seeds" <<'PY'
import struct, sys
s = lambda b: struct.pack("<I", len(b)) + b + b"\0"
p = struct.pack("<IQIBBBBII", 42, 0x7f0000001000, 0xabcdef, 2, 8, 2, 0, 35, 45)
p += s(b"run") + s(b"Walker") + s(b"/srv/chain.php")
for n in (len(p), len(p) - 1, 28):
    open("%s/seed%d" % (sys.argv[1], n), "wb").write(p[:n])
PY
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -max_len=4096 \
	-artifact_prefix="$tmp/" -print_final_stats=1 "$tmp/work" "$tmp/seeds" >"$tmp/fuzz.log" 2>&1
fuzz_verdict "$?" "$tmp" "php payload fuzzing for ${secs}s"
