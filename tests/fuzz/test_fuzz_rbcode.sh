#!/usr/bin/env bash
# A short run (FUZZ_SHORT_SECONDS, default 8) of the Ruby fuzz target:
# the INTERP_CODE payload decoder (decoded payloads must re-encode to the
# same bytes) and MRI's position index decoder. Any crash, leak,
# sanitizer report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"
fuzzer=$TREC_ROOT/build/fuzz_rbcode
secs=${FUZZ_SHORT_SECONDS:-8}

make -s -C "$TREC_ROOT" build/fuzz_rbcode >/dev/null || { fail "build the fuzz target"; exit 1; }
tmp=$(mktemp -d /tmp/trec-fuzz-rb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/work" "$tmp/seeds"
# Seeds: a valid payload (mode byte 0) and a small index (mode byte 1),
# laid out as FORMAT.md §12.2 and MRI's iseq.c say.
python3 - "$tmp/seeds" <<'PY'
import struct, sys
d = sys.argv[1]
def s(b): return struct.pack("<I", len(b)) + b + b"\0"
rows = [(0, 10), (4, 11), (9, 13)]
p = struct.pack("<IQIiBBxx", 42, 0x7f0000001230, 0xabcdef, 10, 3, 1) + s(b"block in run") + \
    s(b"/srv/w.rb") + struct.pack("<I", len(rows)) + b"".join(struct.pack("<Ii", *r) for r in rows)
open(d + "/payload", "wb").write(b"\0" + p)
imm = [0, 0, 0]  # positions 0, 2, 8 over 20 words: 7-bit ranks, nine a word
r = 0
for x in range(27):
    r += x in (0, 2, 8)
    imm[x // 9] |= r << (7 * (x % 9))
open(d + "/index", "wb").write(b"\1" + struct.pack("<II", 20, 3) + b"".join(struct.pack("<Q", w) for w in imm))
PY
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-max_len=4096 -artifact_prefix="$tmp/" -print_final_stats=1 "$tmp/work" "$tmp/seeds" >"$tmp/fuzz.log" 2>&1
rc=$?
fuzz_verdict "$rc" "$tmp" "ruby payload and position index fuzzing for ${secs}s"
