# Damage the CRCs cannot see (FORMAT.md §8, chunk sequence and SUMMARY):
# chunks duplicated, dropped, reordered, a file appended to itself, a
# second SUMMARY, a SUMMARY whose count disagrees, unknown header values.
# Each must be warned about (and shown by --info), with the right sample
# count wherever the file still has the samples; and `treport -` reads a
# recording from a pipe.
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

d = t.tmpdir()
HDR = 256
per_chunk = [10, 11, 12, 13, 14]
total = sum(per_chunk)

spec = ["meta freq_hz 100", "file 0x1111 /bin/true -"]
ts = 1000
for c, n in enumerate(per_chunk):
    for i in range(n):
        ts += 1
        spec.append("sample %d 7 7 0 1 w%d u:0x1111:0x%x" % (ts, c, 0x100 + c))
    if c == len(per_chunk) - 1:
        spec.append("summary 1000 %d %d 0 0" % (ts, total))
    spec.append("flush")
good = t.write_tr(os.path.join(d, "good.tr"), "\n".join(spec) + "\n")
data = open(good, "rb").read()


def chunks(b):
    out, off = [], HDR
    while off < len(b):
        clen = struct.unpack_from("<I", b, off + 8)[0]
        out.append(b[off: off + 32 + clen])
        off += 32 + clen
    return out


ch = chunks(data)
t.check(len(ch) == 5, "the fixture has 5 chunks (%d)" % len(ch))
head = data[:HDR]


def write(name, body):
    p = os.path.join(d, name)
    open(p, "wb").write(body)
    return p


def report(path, *args):
    r = t.treport(path, "--folded", *args, check_rc=False)
    n = sum(t.parse_folded(r.stdout).values()) if r.returncode == 0 else None
    info = t.treport(path, "--info", *args, check_rc=False).stdout
    return r, n, info


def clean(r):
    return "Sanitizer" not in r.stderr and "runtime error" not in r.stderr


r, n, info = report(good)
t.check(r.returncode == 0 and n == total and "warning" not in r.stderr,
        "intact: %d samples, no warning" % total, r.stderr)
t.check("0 chunk(s) missing, 0 duplicate(s) skipped, 0 out of order" in info,
        "intact: --info shows a clean sequence", info)

# A chunk duplicated: the copy is skipped, the count stays right.
r, n, info = report(write("dup.tr", head + b"".join(ch[:3] + [ch[2]] + ch[3:])))
t.check(r.returncode == 0 and n == total and "duplicate" in r.stderr and clean(r),
        "duplicated chunk: skipped with a warning, %d samples (got %s)" % (total, n), r.stderr)
t.check("1 duplicate(s) skipped" in info, "duplicated chunk: --info counts it", info)

# A chunk dropped: its samples are gone, and both the sequence and the
# SUMMARY say so.
r, n, info = report(write("drop.tr", head + b"".join(ch[:2] + ch[3:])))
t.check(r.returncode == 0 and n == total - per_chunk[2] and "1 chunk(s) missing" in r.stderr
        and "SUMMARY record counts %d samples" % total in r.stderr,
        "dropped chunk: warned (sequence and SUMMARY), %d samples" % (total - per_chunk[2]),
        r.stderr)
t.check("1 chunk(s) missing" in info and "counts %d samples, the file holds %d"
        % (total, total - per_chunk[2]) in info, "dropped chunk: --info shows both", info)

# Two chunks swapped: every sample is there, the order is flagged.
r, n, info = report(write("swap.tr", head + b"".join(ch[:2] + [ch[3], ch[2]] + ch[4:])))
t.check(r.returncode == 0 and n == total and "out of order" in r.stderr and
        "0 chunk(s) missing" in r.stderr, "reordered chunks: warned, nothing missing", r.stderr)
t.check("0 chunk(s) missing, 0 duplicate(s) skipped, 1 out of order" in info,
        "reordered chunks: --info counts them", info)

# The file appended to itself: an error without --force (the second header
# is not a chunk); with --force the copy's chunks are duplicates.
selfapp = write("self.tr", data + data)
r, n, info = report(selfapp)
t.check(r.returncode != 0 and "offset %d" % len(data) in r.stderr and r.stdout == "",
        "file appended to itself: error naming the offset", r.stderr)
r, n, info = report(selfapp, "--force")
t.check(r.returncode == 0 and n == total and "5 duplicate(s) skipped" in r.stderr and clean(r),
        "file appended to itself, --force: the copy skipped, %d samples (got %s)" % (total, n),
        r.stderr)

# Two SUMMARY records, and one whose count is wrong.
two = spec[:-1] + ["summary 1000 %d %d 0 0" % (ts, total), "flush"]
r, n, info = report(t.write_tr(os.path.join(d, "two.tr"), "\n".join(two) + "\n"))
t.check(r.returncode == 0 and "another SUMMARY" in r.stderr, "second SUMMARY: warned", r.stderr)
t.check("2 records (one expected)" in info, "second SUMMARY: --info shows it", info)
wrong = [l if not l.startswith("summary") else "summary 1000 %d %d 0 0" % (ts, total + 7)
         for l in spec]
r, n, info = report(t.write_tr(os.path.join(d, "wrong.tr"), "\n".join(wrong) + "\n"))
t.check(r.returncode == 0 and n == total and "counts %d samples, the file holds %d"
        % (total + 7, total) in r.stderr, "SUMMARY count disagrees: warned", r.stderr)


# Unknown header values (the header CRC recomputed, so only the value is odd).
def patched(off, value):
    h = bytearray(head)
    struct.pack_into("<I", h, off, value)
    struct.pack_into("<I", h, HDR - 4, zlib.crc32(bytes(h[:HDR - 4])))
    return bytes(h) + data[HDR:]


r, n, info = report(write("clock.tr", patched(32, 99)))
t.check(r.returncode == 0 and n == total and "unknown clock_id 99" in r.stderr,
        "clock_id 99: warned", r.stderr)
t.check("unknown values: clock_id" in info, "clock_id 99: --info shows it", info)
r, n, info = report(write("page.tr", patched(20, 0)))
t.check(r.returncode == 0 and "page_size 0" in r.stderr and "unknown values: page_size" in info,
        "page_size 0: warned", r.stderr)

# treport - : from a pipe, and from a redirected file.
for how, kw in (("a pipe", {"input": data}), ("a file", {"stdin": open(good, "rb")})):
    rr = subprocess.run([t.TREPORT, "-", "--folded"], capture_output=True, **kw)
    got = sum(t.parse_folded(rr.stdout.decode()).values()) if rr.returncode == 0 else None
    t.check(rr.returncode == 0 and got == total and not rr.stderr,
            "treport - reads a recording from %s (%s samples)" % (how, got), rr.stderr)
rr = subprocess.run([t.TREPORT, "-", "--folded"], capture_output=True, input=data[:-20])
t.check(rr.returncode == 0 and b"truncated" in rr.stderr, "treport - : a cut stream is truncated",
        rr.stderr)
rr = subprocess.run([t.TREPORT, "-", "--folded"], capture_output=True, input=b"hello" * 1000)
t.check(rr.returncode != 0 and b"not a trec recording" in rr.stderr, "treport - : not a recording",
        rr.stderr)
rr = subprocess.run([t.TREPORT, "-", "-"], capture_output=True, input=data)
t.check(rr.returncode == 2 and b"once" in rr.stderr, "treport - - : refused", rr.stderr)

t.finish()
