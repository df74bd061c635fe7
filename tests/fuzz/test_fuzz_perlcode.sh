#!/usr/bin/env bash
# A short run (PERLCODE_FUZZ_SECONDS, default 5) of the Perl INTERP_CODE
# payload fuzz target, seeded with a real payload and its truncations.
# Any crash, leak, sanitizer report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_perlcode "perlcode payload"
# A payload as FORMAT.md §12.1 lays it out: pid 7, cop, key (line 42 in
# the top 16 bits), line 42, reserved, "main", "descend", "/x/chain.pl".
python3 - "$tmp/seeds" <<'PY'
import struct, sys
def s(b): return struct.pack("<I", len(b)) + b + b"\0"
p = struct.pack("<IQQII", 7, 0x5555aaaa0000, (42 << 48) | 0x5555bbbb0001, 42, 0)
p += s(b"main") + s(b"descend") + s(b"/x/chain.pl")
open(sys.argv[1] + "/full", "wb").write(p)
open(sys.argv[1] + "/cut", "wb").write(p[:40])
PY
fuzz_seeds_then_run "perlcode payload" "${PERLCODE_FUZZ_SECONDS:-5}" 16384
exit 0
