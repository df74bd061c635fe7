#!/usr/bin/env bash
# A short run (DCACHE_FUZZ_SECONDS, default 5) of the delta cache entry
# parser's fuzz target (tests/fuzz/fuzz_delta_cache.c) on seeds written
# here: a valid entry (the format of record/unwind/delta_cache.h) with and
# without the CRC-rewriting mode byte. Any crash, leak, sanitizer report,
# broken round trip or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_delta_cache "delta cache entry parser"
python3 - "$tmp/seeds" <<'PY'
import os, struct, sys, zlib
bid = b"fuzzbid!"
rows = [(0x1000, 0, 1, 0, 0, 8, 0), (0x1004, 0, 1, 1, 0, 16, -16), (0x1010, 0, 2, 0, 0x11, 16, 0),
        (0x2000, 0x8002, 0, 0, 0, 0, 0), (0x3000, 0x8001, 0, 0, 0, 0, 0)]
b = b"TRECDLT\n" + struct.pack("<II", 1, len(bid)) + bid + struct.pack("<QQQ", len(rows), 3, 1)
for addr, cmd, reg, fpr, fl, cp, fp in rows:
    b += struct.pack("<QHBBBBiiH", addr, cmd, reg, fpr, fl, 0, cp, fp, 0)
b += struct.pack("<I", zlib.crc32(b))
for name, data in (("valid", b"\x00" + b), ("valid-fixcrc", b"\x01" + b), ("empty", b"\x01" + b[:16])):
    open(os.path.join(sys.argv[1], name), "wb").write(data)
PY
fuzz_seeds_then_run "delta cache entry parser" "${DCACHE_FUZZ_SECONDS:-5}" 65536
exit 0
