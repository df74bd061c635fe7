#!/usr/bin/env bash
# A short run (PYCODE_FUZZ_SECONDS, default 5) of the PYCODE fuzz target:
# the payload decoder and the three Python line-table decoders treport
# runs on it. Seeded with payloads laid out as FORMAT.md's PYCODE section
# says, around real code objects' tables from this machine's python3, and
# their truncations. Any crash, leak, sanitizer report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

fuzz_prepare fuzz_pycode "pycode payload"
python3 - "$tmp/seeds" <<'PY'
import struct, sys
d = sys.argv[1]
def s(b): return struct.pack("<I", len(b)) + b + b"\0"
def payload(code, major, minor):
    table = getattr(code, "co_linetable", None) if (major, minor) >= (3, 10) else code.co_lnotab
    table = table if table is not None else code.co_lnotab
    return (struct.pack("<IQIiBBxx", 42, 0x7f0000001230, 0xabcdef, code.co_firstlineno, major, minor)
            + s(code.co_filename.encode()) + s(code.co_name.encode())
            + s(getattr(code, "co_qualname", code.co_name).encode())
            + struct.pack("<I", len(table)) + table)
def f(n):
    s = 0
    for i in range(n):
        if i % 3:
            s += i * i
        else:
            s -= [x for x in range(i)][-1] if i else 0
    return s
v = sys.version_info
for i, code in enumerate((f.__code__, payload.__code__)):
    p = payload(code, v.major, v.minor)
    open("%s/code%d" % (d, i), "wb").write(p)
    open("%s/cut%d" % (d, i), "wb").write(p[:len(p) - 3])
    # The same table read as the other versions' formats.
    for minor in (8, 10, 12):
        open("%s/code%d-3%d" % (d, i, minor), "wb").write(payload(code, 3, minor)[:16] + bytes([3, minor]) + p[18:])
PY
fuzz_seeds_then_run "pycode payload" "${PYCODE_FUZZ_SECONDS:-5}" 16384
exit 0
