#!/usr/bin/env python3
"""An independent reader of .tr recordings, written from FORMAT.md alone.

It exists to prove that FORMAT.md is complete: it shares no code with
libtrecformat. Standard library only, plus zstd decompression from the
`zstandard` module (Debian: python3-zstandard) or, failing that, the
`zstd` command-line tool.

    read_tr.py FILE                 print the header and every record as JSON lines
    read_tr.py FILE --expect EXP    compare with EXP (JSON written by write_sample)
                                    and print one PASS:/FAIL: line per check
"""
import json
import os
import struct
import subprocess
import sys
import zlib

try:
    import zstandard
except ImportError:  # the CLI fallback is slower but equivalent
    zstandard = None
if os.environ.get("TREC_PY_ZSTD") == "cli":
    zstandard = None

FILE_MAGIC = b"\x89TREC\r\n\x1a"
CHUNK_MAGIC = b"TRCK"
CHUNK_HDR = 32
MAX_CLEN = 65 << 20
MAX_ULEN = 64 << 20
MAX_STRING = 1 << 20
MAX_FRAMES = 4096

TYPE_NAMES = {1: "META", 2: "SAMPLE", 3: "MAPPINGS", 4: "PID_EVENT", 5: "FILE",
              6: "KSYMS", 7: "METRICS", 8: "SUMMARY", 9: "SYMTAB", 10: "PYCODE",
              11: "BLOB", 12: "JITSYMS", 14: "INTERP_CODE"}
STACK, THREAD = 32, 33
U64 = (1 << 64) - 1


class Corrupt(Exception):
    pass


class NotRecording(Exception):
    pass


def zstd_decompress(data, size):
    """One zstd frame that must declare `size` bytes of content."""
    if zstandard is not None:
        params = zstandard.get_frame_parameters(data)
        if params.content_size != size:
            raise Corrupt("frame content size %r != %d" % (params.content_size, size))
        out = zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
    else:
        p = subprocess.run(["zstd", "-q", "-d", "-c"], input=data, capture_output=True)
        if p.returncode:
            raise Corrupt("zstd: " + p.stderr.decode(errors="replace").strip())
        out = p.stdout
    if len(out) != size:
        raise Corrupt("decompressed %d bytes, expected %d" % (len(out), size))
    return out


class Cursor:
    """Bounded reads from one payload (FORMAT.md §4)."""

    def __init__(self, buf, pos=0, end=None):
        self.buf, self.pos = buf, pos
        self.end = len(buf) if end is None else end

    def left(self):
        return self.end - self.pos

    def u8(self):
        if self.pos >= self.end:
            raise Corrupt("payload too short")
        self.pos += 1
        return self.buf[self.pos - 1]

    def varint(self):
        v = 0
        for i in range(10):
            b = self.u8()
            if i == 9 and b > 1:
                raise Corrupt("varint over 64 bits")
            v |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return v
        raise Corrupt("varint longer than 10 bytes")

    def u32(self):
        v = self.varint()
        if v >> 32:
            raise Corrupt("u32 field out of range")
        return v

    def svarint(self):
        z = self.varint()
        return (z >> 1) ^ -(z & 1)

    def s32(self):
        v = self.svarint()
        if not -(1 << 31) <= v < (1 << 31):
            raise Corrupt("s32 field out of range")
        return v

    def raw(self, maxlen):
        n = self.varint()
        if n > maxlen or n > self.left():
            raise Corrupt("length %d over limit or payload" % n)
        self.pos += n
        return bytes(self.buf[self.pos - n:self.pos])

    def string(self, maxlen=MAX_STRING):
        b = self.raw(maxlen)
        if b"\0" in b:
            raise Corrupt("NUL in string")
        return b.decode("utf-8", errors="surrogateescape")

    def count(self, min_size):
        n = self.u32()
        if n * min_size > self.left():
            raise Corrupt("count %d cannot fit" % n)
        return n


def read_frames(c, n):
    frames, file_id, addr = [], 0, 0
    for _ in range(n):
        kind, flags = c.u8(), c.u8()
        file_id = (file_id + c.svarint()) & U64
        addr = (addr + c.svarint()) & U64
        frames.append({"kind": kind, "flags": flags, "file_id": file_id, "addr": addr})
    return frames


def read_stack(c):
    nk, nu = c.u32(), c.u32()
    if nk > MAX_FRAMES or nu > MAX_FRAMES:
        raise Corrupt("too many frames")
    return read_frames(c, nk), read_frames(c, nu)


def read_thread(c):
    return c.u32(), c.u32(), c.string(15)


def read_mapping(c):
    start, size = c.varint(), c.varint()
    if start + size > U64:
        raise Corrupt("mapping past 2^64")
    m = {"start": start, "end": start + size}
    for k in ("file_offset", "file_id", "bias", "inode", "mtime_ns"):
        m[k] = c.varint()
    for k in ("dev_major", "dev_minor", "prot"):
        m[k] = c.u32()
    m["path"] = c.string()
    m["build_id"] = c.raw(64).hex()
    return m


def decode(rtype, c, tables):
    """A returned record as a dict, or None for a table entry / unknown type."""
    if rtype == STACK:
        tables["stacks"].append(read_stack(c))
        return None
    if rtype == THREAD:
        tables["threads"].append(read_thread(c))
        return None
    name = TYPE_NAMES.get(rtype)
    if name is None:
        return None  # unknown type: skipped by its length
    r = {"type": name}
    if name == "META":
        n = c.count(2)
        r["entries"] = [[c.string(), c.string()] for _ in range(n)]
    elif name == "SAMPLE":
        tables["time"] = (tables["time"] + c.svarint()) & U64
        ti, si = c.u32(), c.u32()
        r["time_ns"] = tables["time"]
        r["cpu"], r["flags"], r["weight"] = c.u32(), c.u32(), c.varint()
        # 1.2 appended offcpu_ns (off-CPU waits); older payloads end here.
        r["offcpu_ns"] = c.varint() if c.left() else 0
        if ti >= len(tables["threads"]) or si >= len(tables["stacks"]):
            raise Corrupt("sample refers to a missing table entry")
        r["pid"], r["tid"], r["comm"] = tables["threads"][ti]
        r["kernel_frames"], r["user_frames"] = tables["stacks"][si]
    elif name == "MAPPINGS":
        r["time_ns"], r["pid"] = c.varint(), c.u32()
        n = c.count(12)
        r["mappings"] = [read_mapping(c) for _ in range(n)]
    elif name == "PID_EVENT":
        r["time_ns"] = c.varint()
        for k in ("kind", "pid", "tid", "parent_pid"):
            r[k] = c.u32()
        r["exit_code"] = c.s32()
        r["comm"] = c.string(15)
        r["filename"] = c.string()
    elif name == "FILE":
        for k in ("file_id", "size", "inode", "mtime_ns"):
            r[k] = c.varint()
        r["dev_major"], r["dev_minor"] = c.u32(), c.u32()
        r["path"] = c.string()
        r["build_id"] = c.raw(64).hex()
        r["debuglink"] = c.string()
    elif name == "KSYMS":
        r["time_ns"] = c.varint()
        n, addr, syms = c.count(4), 0, []
        for _ in range(n):
            addr = (addr + c.svarint()) & U64
            syms.append({"addr": addr, "type": chr(c.u8()), "name": c.string(),
                         "module": c.string()})
        r["syms"] = syms
    elif name == "METRICS":
        r["time_ns"] = c.varint()
        n = c.count(3)
        r["values"] = [{"id": c.u32(), "name": c.string(), "value": c.varint()}
                       for _ in range(n)]
    elif name == "SUMMARY":
        for k in ("start_ns", "end_ns", "samples", "lost"):
            r[k] = c.varint()
        r["exit_status"], r["flags"] = c.s32(), c.u32()
    elif name == "JITSYMS":
        r["time_ns"] = c.varint()
        for k in ("pid", "source", "flags", "bad"):
            r[k] = c.u32()
        r["path"] = c.string()
        nfiles, nentries, nrows = c.count(1), c.count(7), c.count(3)
        if nfiles + 7 * nentries + 3 * nrows > c.left():
            raise Corrupt("JITSYMS counts cannot fit")
        r["files"] = [c.string() for _ in range(nfiles)]
        entries, start, load, rows = [], 0, 0, 0
        for _ in range(nentries):
            start = (start + c.svarint()) & U64
            size = c.varint()
            if start + size > U64:
                raise Corrupt("JIT entry past 2^64")
            load = (load + c.svarint()) & U64
            life = c.varint()
            if life and load + life - 1 > U64:
                raise Corrupt("JIT entry end past 2^64")
            e = {"start": start, "size": size, "load_ns": load,
                 "end_ns": load + life - 1 if life else 0, "code_index": c.varint(),
                 "name": c.string(), "lines": []}
            n, addr = c.u32(), start
            rows += n
            if rows > nrows:
                raise Corrupt("JIT rows over nrows")
            for _ in range(n):
                addr = (addr + c.svarint()) & U64
                line, f = c.u32(), c.u32()
                if f >= nfiles:
                    raise Corrupt("JIT row file index out of range")
                e["lines"].append({"addr": addr, "line": line, "file": f})
            entries.append(e)
        if rows != nrows:
            raise Corrupt("JIT rows do not add up to nrows")
        r["entries"] = entries
    else:  # SYMTAB, PYCODE, BLOB
        r["file_id"], r["subtype"] = c.varint(), c.u32()
        r["data"] = c.raw(MAX_ULEN).hex()
    return r  # bytes left in the payload belong to later minor versions


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def read_header(data):
    if not data:
        raise NotRecording("not a trec recording (empty file)")
    if data[:8] != FILE_MAGIC:
        raise NotRecording("not a trec recording (bad magic)")
    if len(data) < 16:
        raise NotRecording("truncated header")
    major, minor, hsize = struct.unpack_from("<HHI", data, 8)
    if major != 1:
        raise NotRecording("unsupported version %d.%d" % (major, minor))
    if not 256 <= hsize <= 65536 or len(data) < hsize:
        raise NotRecording("bad or truncated header")
    if struct.unpack_from("<I", data, hsize - 4)[0] != crc32(data[:hsize - 4]):
        raise NotRecording("corrupt file header (checksum mismatch)")
    flags, page_size, ctime, clock = struct.unpack_from("<IIQI", data, 16)

    def cstr(off):
        return data[off:off + 64].split(b"\0")[0].decode(errors="surrogateescape")

    return hsize, {"version_major": major, "version_minor": minor, "flags": flags,
                   "page_size": page_size, "creation_time_ns": ctime, "clock_id": clock,
                   "kernel_release": cstr(40), "machine": cstr(105), "hostname": cstr(170)}


def read_file(data, warn):
    """(header, records); raises Corrupt on a damaged chunk (no force mode)."""
    off, header = read_header(data)
    records = []
    seqs, nxt = set(), 0  # §8: chunk sequence numbers
    while off < len(data):
        if len(data) - off < CHUNK_HDR:
            warn("file truncated at offset %d: last chunk incomplete" % off)
            break
        h = data[off:off + CHUNK_HDR]
        (magic, ctype, _flags, clen, ulen, nrec, seq, body_crc,
         hdr_crc) = struct.unpack("<4sHHIIIIII", h)
        if magic != CHUNK_MAGIC or hdr_crc != crc32(h[:28]):
            raise Corrupt("bad chunk header at offset %d" % off)
        if clen > MAX_CLEN or ulen > MAX_ULEN:
            raise Corrupt("chunk lengths over the limits at offset %d" % off)
        if clen > len(data) - off - CHUNK_HDR:
            warn("file truncated at offset %d: last chunk incomplete" % off)
            break
        body = data[off + CHUNK_HDR:off + CHUNK_HDR + clen]
        if seq in seqs:
            warn("chunk at offset %d repeats sequence number %d: skipping the duplicate"
                 % (off, seq))
            off += CHUNK_HDR + clen
            continue
        if seq > nxt:
            warn("chunk at offset %d has sequence number %d, expected %d" % (off, seq, nxt))
        elif seq < nxt:
            warn("chunk at offset %d has sequence number %d: out of order" % (off, seq))
        seqs.add(seq)
        nxt = max(nxt, seq + 1)
        if ctype != 1:
            off += CHUNK_HDR + clen  # unknown chunk type: skipped whole
            continue
        if crc32(body) != body_crc:
            raise Corrupt("body checksum mismatch at offset %d" % off)
        try:
            body = zstd_decompress(body, ulen)
        except Corrupt as e:
            raise Corrupt("chunk at offset %d: %s" % (off, e))
        tables = {"stacks": [], "threads": [], "time": 0}
        c, seen = Cursor(body), 0
        while c.left():
            rtype, length = c.u32(), c.varint()
            if length > c.left():
                raise Corrupt("record past the body at offset %d" % off)
            rec = decode(rtype, Cursor(body, c.pos, c.pos + length), tables)
            c.pos += length
            seen += 1
            if rec is not None:
                rec["chunk_offset"] = off
                records.append(rec)
        if seen != nrec:
            raise Corrupt("record count %d != %d at offset %d" % (seen, nrec, off))
        off += CHUNK_HDR + clen
    if nxt > len(seqs):
        warn("chunk sequence: %d chunk(s) missing" % (nxt - len(seqs)))
    summaries = [r for r in records if r["type"] == "SUMMARY"]
    samples = sum(r["type"] == "SAMPLE" for r in records)
    if len(summaries) > 1:
        warn("%d SUMMARY records" % len(summaries))
    if summaries and summaries[0]["samples"] != samples:
        warn("the SUMMARY record counts %d samples, the file holds %d"
             % (summaries[0]["samples"], samples))
    return header, records


def compare(header, records, expected):
    """One PASS/FAIL line per check; returns the number of failures."""
    fails = 0

    def check(ok, name):
        nonlocal fails
        print("%s: python reader: %s" % ("PASS" if ok else "FAIL", name))
        fails += not ok

    for k, v in expected["header"].items():
        if header.get(k) != v:
            print("header %s: got %r want %r" % (k, header.get(k), v), file=sys.stderr)
    check(all(header.get(k) == v for k, v in expected["header"].items()), "header fields")
    want = expected["records"]
    check(len(records) == len(want), "record count %d (want %d)" % (len(records), len(want)))
    bytype = {}
    for got, exp in zip(records, want):
        got = {k: v for k, v in got.items() if k != "chunk_offset"}
        ok = got == exp
        if not ok:
            print("mismatch:\n got  %s\n want %s" % (json.dumps(got), json.dumps(exp)),
                  file=sys.stderr)
        bytype.setdefault(exp["type"], []).append(ok)
    for t in sorted(bytype):
        check(all(bytype[t]), "%d %s records, every field" % (len(bytype[t]), t))
    return fails


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--expect"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        data = f.read()
    warnings = []

    def warn(msg):
        warnings.append(msg)
        print("warning: " + msg, file=sys.stderr)

    try:
        header, records = read_file(data, warn)
    except (Corrupt, NotRecording) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    if len(argv) == 2:
        print(json.dumps({"header": header, "warnings": warnings}))
        for r in records:
            print(json.dumps(r))
        return 0
    with open(argv[3]) as f:
        expected = json.load(f)
    return 1 if compare(header, records, expected) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
