#!/usr/bin/env python3
"""Hostile .tr files for treport, made from one real recording, and the
check that treport answers each with a clear message and no crash.

usage: hostile.py TREPORT RECORDING WORKDIR [--flips N] [--records N] [--seed S]

Kinds of damage (layout from FORMAT.md: a file header whose size is at
offset 12 and whose CRC-32 is its last 4 bytes, then chunks of a 32-byte
header "TRCK" type flags clen ulen nrec seq body_crc hdr_crc and a zstd
body):
  structural  empty, cut inside the header, bad magic, wrong version,
              absurd header size, chunk lengths too large or zero, cut
              inside a chunk, chunks reordered or repeated
  bit flips   random bits flipped anywhere: every byte is under a CRC, so
              each must be reported
  records     bytes changed inside a decompressed chunk body, then
              recompressed with valid lengths and CRCs: the record
              decoders must refuse them cleanly (treport may also accept
              the data, but must never crash)
Every treport run is under a timeout; a sanitizer report (exit 98/99), a
signal or a timeout is a crash. Prints one PASS:/FAIL: line per check.
"""

import argparse
import os
import random
import struct
import subprocess
import sys
import zlib

HDR_SIZE_OFF = 12
CHUNK_HDR = 32
CLEN, ULEN, NREC, BODY_CRC, HDR_CRC = 8, 12, 16, 24, 28
CRASH_CODES = {98, 99, 124}


def crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


class Recording:
    def __init__(self, data):
        self.data = bytes(data)
        self.hsize = struct.unpack_from("<I", data, HDR_SIZE_OFF)[0]
        self.chunks = []  # (offset, total length)
        off = self.hsize
        while off + CHUNK_HDR <= len(data):
            if data[off:off + 4] != b"TRCK":
                raise ValueError("no chunk magic at offset %d" % off)
            clen = struct.unpack_from("<I", data, off + CLEN)[0]
            self.chunks.append((off, CHUNK_HDR + clen))
            off += CHUNK_HDR + clen
        if not self.chunks:
            raise ValueError("recording has no chunks")

    def header(self):
        return bytearray(self.data[:self.hsize])

    def chunk(self, i):
        off, n = self.chunks[i]
        return bytearray(self.data[off:off + n])

    def body(self):
        return b"".join(self.data[o:o + n] for o, n in self.chunks)


def fix_header_crc(h):
    struct.pack_into("<I", h, len(h) - 4, crc(bytes(h[:-4])))
    return h


def fix_chunk_crc(c):
    struct.pack_into("<I", c, HDR_CRC, crc(bytes(c[:HDR_CRC])))
    return c


def set_u32(buf, off, v):
    struct.pack_into("<I", buf, off, v & 0xFFFFFFFF)
    return buf


def zstd(data, decompress, tmpdir):
    """zstd(1) on data. Compression reads a file, not a pipe, so the frame
    header declares its content size as FORMAT.md requires."""
    if decompress:
        return subprocess.run(["zstd", "-q", "-d", "-c"], input=data,
                              stdout=subprocess.PIPE, check=True).stdout
    path = os.path.join(tmpdir, "body.raw")
    with open(path, "wb") as f:
        f.write(data)
    out = subprocess.run(["zstd", "-q", "-c", "-3", path], stdout=subprocess.PIPE,
                         check=True).stdout
    os.unlink(path)
    return out


def structural(rec):
    """(name, bytes, expectation) for the targeted kinds of damage.
    Expectations: "error" (non-zero exit and a message), "message"
    (a message, any exit), "any" (no crash; a message if non-zero)."""
    d, h = rec.data, rec.hsize
    first_off, first_len = rec.chunks[0]
    last_off, last_len = rec.chunks[-1]
    rest = d[h:]
    out = [
        ("empty", b"", "error"),
        ("magic-only", d[:4], "error"),
        ("header-cut", d[:h // 2], "error"),
        ("bad-magic", b"\x00" + d[1:], "error"),
        ("wrong-version", bytes(fix_header_crc(set_u16(rec.header(), 8, 99))) + rest, "error"),
        ("header-size-huge", bytes(set_u32(rec.header(), HDR_SIZE_OFF, 0xFFFFFFF0)) + rest, "error"),
        ("header-size-small", bytes(set_u32(rec.header(), HDR_SIZE_OFF, 8)) + rest, "error"),
        ("header-crc", bytes(flip(rec.header(), 50 * 8)) + rest, "message"),
        ("chunk-header-cut", d[:first_off + CHUNK_HDR // 2], "message"),
        ("first-chunk-cut", d[:first_off + first_len // 2], "message"),
        ("last-chunk-cut", d[:last_off + last_len // 2], "message"),
        ("last-chunk-minus-1", d[:len(d) - 1], "message"),
        ("trailing-garbage", d + b"\x5a" * 100, "message"),
        ("garbage", bytes(random.Random(7).getrandbits(8) for _ in range(4096)), "error"),
    ]
    for field, name in ((CLEN, "clen"), (ULEN, "ulen"), (NREC, "nrec")):
        for v, label in ((0xFFFFFFF0, "huge"), (0, "zero"), (0x7FFFFFFF, "2g")):
            c = fix_chunk_crc(set_u32(rec.chunk(0), field, v))
            out.append(("chunk-%s-%s" % (name, label),
                        d[:first_off] + bytes(c) + d[first_off + first_len:], "message"))
    c = rec.chunk(0)
    c[CHUNK_HDR + len(c[CHUNK_HDR:]) // 2] ^= 0x10
    out.append(("chunk-body-crc", d[:first_off] + bytes(c) + d[first_off + first_len:], "message"))
    chunks = [bytes(rec.chunk(i)) for i in range(len(rec.chunks))]
    if len(chunks) > 1:
        out.append(("chunks-reversed", d[:h] + b"".join(reversed(chunks)), "any"))
    out.append(("chunk-repeated", d[:h] + chunks[0] + b"".join(chunks), "any"))
    out.append(("header-only", d[:h], "any"))
    return out


def set_u16(buf, off, v):
    struct.pack_into("<H", buf, off, v)
    return buf


def flip(buf, bit):
    buf[bit // 8] ^= 1 << (bit % 8)
    return buf


def bit_flips(rec, n, rng):
    for i in range(n):
        b = bytearray(rec.data)
        for _ in range(rng.randint(1, 4)):
            flip(b, rng.randrange(len(b) * 8))
        yield "bitflip-%d" % i, bytes(b), "message"


def record_damage(rec, n, rng, tmpdir):
    """Damage inside decompressed chunk bodies, recompressed with valid
    lengths and CRCs so it reaches the record decoders."""
    bodies = []
    for i in range(len(rec.chunks)):
        c = rec.chunk(i)
        bodies.append((i, zstd(bytes(c[CHUNK_HDR:]), True, tmpdir)))
    for k in range(n):
        i, body = bodies[rng.randrange(len(bodies))]
        b = bytearray(body)
        how = rng.choice(("flip", "ff", "zero", "cut"))
        if how == "cut":
            b = b[:rng.randrange(len(b))]
        else:
            for _ in range(rng.randint(1, 6)):
                p = rng.randrange(len(b))
                if how == "flip":
                    b[p] ^= 1 << rng.randrange(8)
                else:
                    b[p:p + 4] = (b"\xff" if how == "ff" else b"\x00") * len(b[p:p + 4])
        comp = zstd(bytes(b), False, tmpdir)
        c = rec.chunk(i)[:CHUNK_HDR]
        set_u32(c, CLEN, len(comp))
        set_u32(c, ULEN, len(b))
        set_u32(c, BODY_CRC, crc(comp))
        fix_chunk_crc(c)
        off, length = rec.chunks[i]
        yield ("record-%s-%d" % (how, k),
               rec.data[:off] + bytes(c) + comp + rec.data[off + length:], "any")


def run_treport(treport, path, mode, timeout):
    cmd = [treport] + (["--info", path] if mode == "info" else [mode, path])
    if mode == "--pprof":
        cmd = [treport, "--pprof", "-o", path + ".pb.gz", path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timeout"
    return p.returncode, p.stderr.decode("utf-8", "replace")


def judge(rc, err, expect):
    """None if fine, else what is wrong."""
    if rc < 0 or rc >= 128 or rc in CRASH_CODES:
        return "crash (exit %d): %s" % (rc, err.strip()[-300:])
    lines = [x for x in err.splitlines() if x.strip()]
    if expect == "error" and rc == 0:
        return "accepted (exit 0)"
    if (expect in ("error", "message") or rc != 0) and not lines:
        return "no message (exit %d)" % rc
    if rc != 0 and len(lines) > 20:
        return "%d lines of errors, not one clear message" % len(lines)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("treport")
    ap.add_argument("recording")
    ap.add_argument("workdir")
    ap.add_argument("--flips", type=int, default=20)
    ap.add_argument("--records", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--modes", default="info,--folded",
                    help="treport modes for the structural cases")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.recording, "rb") as f:
        rec = Recording(f.read())
    print("recording: %d bytes, header %d, %d chunks" % (len(rec.data), rec.hsize,
                                                         len(rec.chunks)))
    failures = 0

    def check_group(group, cases, modes):
        nonlocal failures
        bad = []
        for name, data, expect in cases:
            path = os.path.join(a.workdir, name + ".tr")
            with open(path, "wb") as f:
                f.write(data)
            for mode in modes:
                rc, err = run_treport(a.treport, path, mode, a.timeout)
                why = judge(rc, err, expect)
                first = err.strip().splitlines()[0] if err.strip() else ""
                print("  %-22s %-14s exit %3d  %s" % (name, mode, rc, first[:110]))
                if why:
                    bad.append("%s (%s): %s" % (name, mode, why))
            os.unlink(path)
        if bad:
            failures += 1
            print("FAIL: %s: %d of %d cases: %s" % (group, len(bad), len(cases),
                                                    "; ".join(bad[:5])))
        else:
            print("PASS: %s: all %d cases answered with a clear message, no crash" %
                  (group, len(cases)))

    modes = a.modes.split(",")
    for name, data, expect in structural(rec):
        check_group("hostile file '%s'" % name, [(name, data, expect)], modes)
    check_group("%d bit-flipped recordings" % a.flips, list(bit_flips(rec, a.flips, rng)),
                ["info"])
    check_group("%d recordings with damaged records" % a.records,
                list(record_damage(rec, a.records, rng, a.workdir)), ["--folded"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
