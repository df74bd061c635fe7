#!/usr/bin/env bash
# A short run (SCACHE_FUZZ_SECONDS, default 5) of the symbol cache entry
# parser's fuzz target (tests/fuzz/fuzz_symbol_cache.c) on seeds written
# here: a valid entry (the format of record/archive/symbol_cache.h) with
# and without the CRC-rewriting mode byte. Any crash, leak, sanitizer
# report, index out of range, broken round trip or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_symbol_cache "symbol cache entry parser"
python3 - "$tmp/seeds" <<'PY'
import os, struct, sys, zlib
bid = b"fuzzbid!"
arc = b"TRECARC-not-parsed-here"
strs = [b"a.c", b"inlined"]
units = [(2, 1), (1, 0)]
lines = [(0x1000, 1, 10), (0x1010, 0, 0), (0x2000, 1, 20)]
inls = [(0x1004, 0x1008, 1, 1, 1, 11)]
runs = [(0x1000, 0), (0x2000, 1), (0x2100, 0xffffffff)]
b = b"TRECSYM\n" + struct.pack("<II", 1, len(bid)) + bid + struct.pack("<Q", len(arc)) + arc
b += struct.pack("<6I", 1, len(strs), len(units), len(lines), len(inls), len(runs))
for s in strs:
    b += struct.pack("<I", len(s)) + s
for u in units:
    b += struct.pack("<II", *u)
for l in lines:
    b += struct.pack("<QII", *l)
for i in inls:
    b += struct.pack("<QQIIII", *i)
for r in runs:
    b += struct.pack("<QI", *r)
b += struct.pack("<I", zlib.crc32(b))
for name, data in (("valid", b"\x00" + b), ("valid-fixcrc", b"\x01" + b), ("empty", b"\x01" + b[:24])):
    open(os.path.join(sys.argv[1], name), "wb").write(data)
PY
fuzz_seeds_then_run "symbol cache entry parser" "${SCACHE_FUZZ_SECONDS:-5}" 65536
exit 0
