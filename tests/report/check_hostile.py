import os
import shutil
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()
busy = os.path.join(t.WORKLOADS, "busy")
syms = {name: start for start, size, name in t.text_symbols(busy)}
spin = syms["spin.constprop.0"] + 0x10


def rep(*args):
    return t.treport(*args, check_rc=False)


def one_error(r):
    """exactly one 'treport:' line on stderr, no sanitizer report"""
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return len([l for l in lines if l.startswith("treport:")]) >= 1 and \
        not any("Sanitizer" in l or "runtime error" in l for l in lines)


# ---- files that are not recordings ------------------------------------------
r = rep(os.path.join(d, "missing.tr"))
t.check(r.returncode != 0 and "No such file" in r.stderr and one_error(r), "missing file: clear error")
r = rep(d)
t.check(r.returncode != 0 and one_error(r), "directory: clear error")
open(os.path.join(d, "empty.tr"), "w").close()
r = rep(os.path.join(d, "empty.tr"))
t.check(r.returncode != 0 and "not a trec recording" in r.stderr, "empty file: not a recording")
with open(os.path.join(d, "random.tr"), "wb") as f:
    f.write(os.urandom(4096))
r = rep(os.path.join(d, "random.tr"))
t.check(r.returncode != 0 and "not a trec recording" in r.stderr, "random bytes: not a recording")
os.chmod(os.path.join(d, "random.tr"), 0)
if os.geteuid() != 0:
    r = rep(os.path.join(d, "random.tr"))
    t.check(r.returncode != 0 and one_error(r), "unreadable file: clear error")

# ---- a recording in three chunks, then cut and corrupted ---------------------
spec = ["meta freq_hz 100", "file 0x1111 %s %s" % (busy, t.build_id(busy))]
for chunk in range(3):
    for i in range(10):
        spec.append("sample %d 1 1 0 1 busy u:0x1111:0x%x" % (1000 + chunk * 100 + i, spin))
    spec.append("flush")
good = t.write_tr(os.path.join(d, "good.tr"), "\n".join(spec) + "\n")
data = open(good, "rb").read()
folded = lambda r: sum(t.parse_folded(r.stdout).values())
r = rep(good, "--folded")
t.check(r.returncode == 0 and folded(r) == 30, "three chunks: 30 samples")

# Chunk starts: find them by cutting at every offset would be slow; use
# --info's count and a cut in the last quarter instead.
cut = os.path.join(d, "cut.tr")
open(cut, "wb").write(data[: len(data) - 20])
r = rep(cut, "--folded")
t.check(r.returncode == 0 and "truncated" in r.stderr and folded(r) == 20,
        "truncated: warning, the complete chunks reported", r.stderr)
open(cut, "wb").write(data[:100])
r = rep(cut, "--folded")
t.check(r.returncode != 0 and "truncated" in r.stderr and "offset" in r.stderr,
        "truncated header: error naming the offset", r.stderr)

bad = os.path.join(d, "bad.tr")
b = bytearray(data)
mid = len(b) // 2  # inside the second chunk
b[mid] ^= 0x55
open(bad, "wb").write(bytes(b))
r = rep(bad, "--folded")
t.check(r.returncode != 0 and re.search(r"offset \d+", r.stderr) is not None and r.stdout == "",
        "corrupt chunk: error with offset, non-zero exit", r.stderr)
r = rep(bad, "--folded", "--force")
t.check(r.returncode == 0 and folded(r) == 20 and "corrupt" in r.stderr,
        "corrupt chunk --force: skipped with a warning, the rest reported", (r.returncode, r.stderr))

# ---- hostile values inside valid records -------------------------------------
spec = ["meta freq_hz 0", "meta freq_hz banana",
        "file 0x1111 %s %s" % (busy, t.build_id(busy)),
        "file 0x2222 %s 00112233445566778899aabbccddeeff00112233" % busy,  # wrong build-id
        "file 0x3333 relative/path -",
        # overlapping and empty mappings (the format cannot encode inverted ones)
        "map 5 9 0x555555554000 0x555555556000 0x1000 0x1111 0x555555553000 5 %s" % busy,
        "map 5 9 0x555555555000 0x555555557000 0 0x2222 0 5 overlap",
        "map 5 9 0x9000 0x9000 0 0x1111 0 5 empty",
        "maps",
        "ksym 0xffffffff81000200 T b_func", "ksym 0xffffffff81000100 T a_func",
        "ksym 0xffffffff81000100 T a_alias", "ksym 0 T zero", "ksyms 1",
        "sample 10 9 9 0 0 busy u:0x1111:0x%x" % spin,                       # weight 0
        "sample 11 9 9 0 18446744073709551615 busy u:0x1111:0x%x" % spin,    # huge weight
        "sample 12 9 9 0 1 busy a:0x%x" % (0x555555553000 + spin),           # absolute pc in busy
        "sample 13 9 9 0 1 busy u:0x2222:0x%x u:0x2222:0x%x:2" % (spin, spin), # mismatched build-id
        "sample 14 9 9 0 1 busy u:0x7777:0x10 u:0x3333:0x20",                 # unknown file ids
        "sample 15 9 9 0 1 busy e:9999 e:4003",                               # unknown error code
        "sample 16 9 9 0 1 busy k:0xffffffff81000150 k:0xffffffff81000208:2 k:0x10 u:0x1111:0x%x" % spin,
        "sample 17 9 9 0 1 busy k:0xffffffffffffffff",
        "sample 18 9 9 0 1 - p:0x7f0000001000:0x500000007",                  # empty comm, python frame
        "sample 19 9 9 0 1 busy u:0x1111:0xffffffffffffffff:2 u:0x1111:0 u:0x1111:1",
        ]
hostile = t.write_tr(os.path.join(d, "hostile.tr"), "\n".join(spec) + "\n")
outs = {}
for opt in ("--folded", "--perf-script", "--info", ""):
    r = rep(hostile, *([opt] if opt else []))
    outs[opt] = r
    t.check(r.returncode == 0 and not any(x in r.stderr for x in ("Sanitizer", "runtime error")),
            "hostile values: %s runs cleanly" % (opt or "summary"), r.stderr[-2000:])
if t.have_go():
    pb = os.path.join(d, "h.pb.gz")
    r = rep(hostile, "--pprof", "-o", pb)
    t.check(r.returncode == 0 and t.pprof_raw(pb), "hostile values: --pprof output decodes")
f = t.parse_folded(outs["--folded"].stdout)
err = outs["--folded"].stderr
t.check(err.count("build-id") == 1 and "not using" in err,
        "build-id mismatch: warned once", err)
t.check("busy;[busy];[busy] 1" in outs["--folded"].stdout,
        "build-id mismatch: frames stay unresolved, never named from the wrong file")
t.check(any(k == "busy;spin.constprop.0" and v >= 2 for k, v in f.items()),
        "absolute pc resolved through the mapping snapshot")
t.check("busy;[error: 4003];[error: 9999]" not in f and
        "busy;[error: NATIVE_STACK_DELTA_INVALID];[error: 9999] 1" in outs["--folded"].stdout,
        "unknown error codes shown by number")
t.check("busy;spin.constprop.0;[[kernel.kallsyms]];b_func;a_func 1" in outs["--folded"].stdout,
        "unsorted ksyms sorted; address below every symbol unresolved")
t.check(":9;[python 0x7f0000001000] 1" in outs["--folded"].stdout, "empty comm shown as :PID; python frame")
t.check(f.get("busy;spin.constprop.0") == 0xffffffffffffffff, "huge weight saturates instead of wrapping")
t.check("busy;[busy];[busy];[busy] 1" in outs["--folded"].stdout, "addresses outside every symbol: [dso]")
t.check("freq_hz" in err and "not a frequency" in err, "bad META freq_hz: warning")

# ---- bounds: what a small hostile file may cost ------------------------------------
# Every output is the same from run to run (the hash tables' seed is random
# per process: hash_seed.h).
for opt in ("--folded", "--json", "--perf-script"):
    a, b = rep(hostile, opt), rep(hostile, opt)
    t.check(a.returncode == 0 and a.stdout == b.stdout and a.stdout,
            "hostile values: %s the same in two runs" % opt)
# META: at most 256 keys per recording, warned once.
spec = ["meta k%d v" % i for i in range(300)] + ["sample 10 9 9 0 1 busy e:1"]
r = rep(t.write_tr(os.path.join(d, "meta.tr"), "\n".join(spec) + "\n"), "--info")
t.check(r.returncode == 0 and r.stderr.count("more than 256 META keys") == 1,
        "300 META keys: the first 256 kept, one warning", r.stderr[-500:])
# Mapping snapshots out of time order are sorted before lookups: at 150 the
# snapshot of time 100 (added last) is in force and maps the pc to another
# file (unresolved), at 350 the one of time 300 (busy: spin). (Two threads:
# a thread's samples of one stack are named once, at the first.)
bias = 0x555555553000
spec = ["file 0x1111 %s %s" % (busy, t.build_id(busy)),
        "file 0x2222 %s 00112233445566778899aabbccddeeff00112233" % busy,
        "map 300 7 0x555555554000 0x555555556000 0x1000 0x1111 0x%x 5 %s" % (bias, busy), "maps",
        "map 100 7 0x555555554000 0x555555556000 0x1000 0x2222 0x%x 5 other" % bias, "maps",
        "sample 150 7 7 0 1 busy a:0x%x" % (bias + spin),
        "sample 350 7 8 0 1 busy a:0x%x" % (bias + spin)]
r = rep(t.write_tr(os.path.join(d, "snaps.tr"), "\n".join(spec) + "\n"), "--folded")
f = t.parse_folded(r.stdout)
t.check(r.returncode == 0 and f.get("busy;spin.constprop.0") == 1 and
        sum(v for k, v in f.items() if k != "busy;spin.constprop.0") == 1,
        "snapshots out of time order: each sample takes the one in force", r.stdout)
# perf.data: a weight is written as copies of its sample, but copies add at
# most 64 MiB to the file in all; past that the weight goes into the period.
deep = " ".join("u:0x1111:0x%x" % spin for _ in range(1000))
spec = ["file 0x1111 %s %s" % (busy, t.build_id(busy))] + \
    ["sample %d 9 9 0 4096 busy %s" % (10 + i, deep) for i in range(4)]
pd = os.path.join(d, "w.data")
r = rep(t.write_tr(os.path.join(d, "weights.tr"), "\n".join(spec) + "\n"), "--perf-data", "-o", pd)
size = os.path.getsize(pd) if os.path.exists(pd) else -1
t.check(r.returncode == 0 and 0 < size < 70 << 20 and "in the period" in r.stderr,
        "perf.data of 4 samples of weight 4096, 1000 frames: %d bytes (not 130 MB), warned" % size,
        r.stderr[-500:])
# JIT entries nested 4096 deep under one pc: lookups look at fewer
# candidates once 2^28 were looked at in all, with one warning.
spec = ["jit 5 9 0x%x %d f%d" % (0x7f0000000000 + i, 2 * (4096 - i), i) for i in range(4096)]
frames = " ".join(["a:0x7f0000001000"] * 4095)
spec += ["sample 10 9 %d 0 1 busy %s" % (100 + i, frames) for i in range(20)]  # 20 threads
r = rep(t.write_tr(os.path.join(d, "jit.tr"), "\n".join(spec) + "\n"), "--folded")
t.check(r.returncode == 0 and r.stderr.count("heavily overlapping") == 1 and "f4095" in r.stdout,
        "4096 nested JIT entries: named, the scans cut short with one warning", r.stderr[-500:])

# ---- bad options ----------------------------------------------------------------
for args in (["--bogus", good], [good, "--pid", "abc"], [good, "--pid", "-1"], [good, "--tid", ""],
             [good, "--time", "5"], [good, "--time", "2,1"], [good, "--time", "x,y"],
             [good, "--top", "0"], [good, "--folded", "--pprof"], [good, "--user-only", "--kernel-only"],
             [good, "-o"], [], [good, "--comm", "a_name_longer_than_15"]):
    r = rep(*args)
    lines = [l for l in r.stderr.splitlines() if l.startswith("treport:")]
    t.check(r.returncode == 2 and len(lines) == 1 and r.stdout == "",
            "bad option %s: one message, exit 2" % " ".join(a.replace(d, "D") for a in args), r.stderr)
r = rep(good, "--folded", "-o", os.path.join(d, "no", "such", "dir"))
t.check(r.returncode != 0 and "cannot write" in r.stderr, "unwritable -o: clear error")
if os.path.exists("/dev/full"):
    with open("/dev/full", "w") as full:
        import subprocess
        rr = subprocess.run([t.TREPORT, good, "--folded"], stdout=full, stderr=subprocess.PIPE, text=True)
    t.check(rr.returncode != 0 and "failed" in rr.stderr, "full disk: write error reported")
    # each output to a full disk: one message naming the file and the cause
    for fmt in ("--folded", "--json", "--pprof", "--firefox", "--perf-script", "--flamegraph"):
        rr = rep(good, fmt, "-o", "/dev/full")
        errs = [l for l in rr.stderr.splitlines() if "incomplete" not in l]  # (good has no SUMMARY)
        t.check(rr.returncode == 1 and errs == ["treport: writing /dev/full failed: No space left on device"],
                "full disk, %s: one message, exit 1" % fmt, rr.stderr)
    rr = rep(good, "--perf-data", "-o", "/dev/full")
    errs = [l for l in rr.stderr.splitlines() if "incomplete" not in l]
    t.check(rr.returncode == 1 and len(errs) == 1 and "not one" in errs[0] and
            not os.path.exists("/dev/full.debug"), "--perf-data to a device: refused, no FILE.debug/",
            rr.stderr)
# -o naming an input: refused before anything is written, the recording kept
same = os.path.join(d, "same.tr")
shutil.copy(good, same)
before = open(same, "rb").read()
r = rep("--folded", "-o", same, same)
t.check(r.returncode == 2 and "is the recording" in r.stderr and open(same, "rb").read() == before,
        "-o onto its own input: refused, the recording kept", r.stderr)
r = rep("--help")
t.check(r.returncode == 0 and "--perf-script" in r.stdout, "--help")
r = rep("--version")
t.check(r.returncode == 0 and r.stdout.startswith("treport "), "--version")

t.finish()
