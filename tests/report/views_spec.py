# Synthetic recordings for the flame graph, JSON and diff tests: frames at
# real addresses of the busy workload (user, libc-free), kernel frames, an
# error frame, two processes and three threads; a second recording with
# other weights for --diff; and one with hostile names (invalid UTF-8,
# markup, quotes, control bytes) in a comm, a file path and a kernel symbol.
import os
import subprocess

import trlib as t

START = 5000000000
K = {"entry_SYSCALL_64": 0xffffffff81000100, "do_syscall_64": 0xffffffff81200000}


def _write(path, lines):
    """Writes a spec given as bytes lines (hostile names are not UTF-8)."""
    data = b"\n".join(l if isinstance(l, bytes) else l.encode() for l in lines) + b"\n"
    r = subprocess.run([t.gen_tr(), path], input=data, capture_output=True)
    if r.returncode:
        raise RuntimeError("gen_tr: " + r.stderr.decode(errors="replace"))
    return path


def _header(busy):
    return ["meta freq_hz 1000", "meta cmdline ./busy 2", "meta command ./busy 2", "meta event cpu-clock",
            "file 0x1111 %s %s" % (busy, t.build_id(busy)),
            "ksym 0xffffffff81200000 T do_syscall_64", "ksym 0xffffffff81000100 T entry_SYSCALL_64",
            "ksyms 10"]


def busy_recordings(d):
    """(a.tr, b.tr, samples_a, samples_b): samples as (stack name, pid, tid,
    comm, weight, seconds from start); stacks leaf first."""
    t.build_workloads()
    busy = os.path.join(t.WORKLOADS, "busy")
    syms = {name: start for start, size, name in t.text_symbols(busy)}
    U = lambda name, off, ret=True: "u:0x1111:0x%x%s" % (syms[name] + off, ":2" if ret else "")
    stacks = {
        "deep": [U("spin.constprop.0", 0x10, False)] + [U("recurse", 0x20)] * 3 + [U("main", 0x30)],
        "sort": [U("cmp_ints", 0x19, False), U("sort_work", 0x30), U("main", 0x30)],
        "sys": ["k:0x%x" % (K["do_syscall_64"] + 0x10), "k:0x%x:2" % (K["entry_SYSCALL_64"] + 8),
                U("main", 0x30)],
        "err": [U("spin.constprop.0", 0x10, False), U("recurse", 0x20), "e:4003"],
    }

    def spec(samples):
        lines = _header(busy)
        for name, pid, tid, comm, w, ts in samples:
            lines.append("sample %d %d %d 1 %d %s %s" % (START + int(ts * 1e9), pid, tid, w, comm,
                                                         " ".join(stacks[name])))
        lines.append("summary %d %d 100 0 0" % (START, START + 2000000000))
        return lines

    a = [("deep", 42, 42, "busy", 1, 0.05 * i) for i in range(40)]
    a += [("sort", 42, 43, "busy", 1, 0.07 * i + 0.001) for i in range(25)]
    a += [("sys", 42, 43, "busy", 2, 0.1 * i + 0.01) for i in range(10)]
    a += [("err", 50, 51, "my-prog", 1, 1.9)]
    # b: the sort grew, the recursion shrank, the error is gone
    b = [("deep", 42, 42, "busy", 1, 0.1 * i) for i in range(10)]
    b += [("sort", 42, 43, "busy", 3, 0.02 * i + 0.003) for i in range(60)]
    b += [("sys", 42, 43, "busy", 1, 0.1 * i + 0.01) for i in range(10)]
    pa, pb = os.path.join(d, "a.tr"), os.path.join(d, "b.tr")
    _write(pa, spec(a))
    _write(pb, spec(b))
    return pa, pb, a, b


# name bytes -> what a JSON or XML reader must get back
HOSTILE_PATH = b"/tmp/h\xff\xfe<&\"'>]]>\x01;\xc0\xaf\xed\xa0\x80-\xc3\xbc\xf0\x9f\x94\xa5"
HOSTILE_KSYM = b"k\xc3(<b>&amp;\"\\"
HOSTILE_COMM = b"c\xe2\x82<&'\""


def hostile_recording(d):
    t.build_workloads()
    busy = os.path.join(t.WORKLOADS, "busy")
    syms = {name: start for start, size, name in t.text_symbols(busy)}
    lines = [b"meta freq_hz 1000", b"meta event cpu-clock",
             b"file 0x2222 " + HOSTILE_PATH + b" -",
             ("file 0x1111 %s %s" % (busy, t.build_id(busy))).encode(),
             b"ksym 0xffffffff81200000 T " + HOSTILE_KSYM, b"ksyms 10",
             b"sample %d 7 7 0 3 " % (START + 1000) + HOSTILE_COMM +
             (b" k:0xffffffff81200010 u:0x2222:0x1000 u:0x1111:0x%x:2" % (syms["main"] + 0x30)),
             b"summary %d %d 3 0 0" % (START, START + 1000000000)]
    p = os.path.join(d, "hostile.tr")
    _write(p, lines)
    return p


def decode_like_treport(b):
    """What treport's escapers make of bytes: each valid UTF-8 character
    kept, each byte of an invalid sequence one U+FFFD; and control bytes
    '?', as the symbolizer sanitizes them."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        if n:
            try:
                ch = b[i:i + n].decode("utf-8")
                out.append("?" if len(ch) == 1 and (ord(ch) < 0x20 or ord(ch) == 0x7f) else ch)
                i += n
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)
