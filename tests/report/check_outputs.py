import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()
busy = os.path.join(t.WORKLOADS, "busy")
stripped = os.path.join(d, "busy-stripped")
subprocess.run(["strip", "--strip-all", "-o", stripped, busy], check=True)
spaced = os.path.join(d, "my dir", "busy-stripped")  # speedscope reads a dso as one token
os.mkdir(os.path.dirname(spaced))
shutil.copy(stripped, spaced)
syms = {name: start for start, size, name in t.text_symbols(busy)}
libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
libc_qsort = None
for line in t.run(["nm", "-D", "--defined-only", libc]).stdout.splitlines():
    p = line.split()
    if len(p) == 3 and p[2] == "qsort":
        libc_qsort = int(p[0], 16)

PERIOD = 1000000  # freq 1000 Hz
K = {  # kernel symbols, deliberately unsorted, with a data symbol between
    "entry_SYSCALL_64": 0xffffffff81000100,
    "do_syscall_64": 0xffffffff81200000,
    "ext4_read": 0xffffffffc0001000,
}
spec = ["meta freq_hz 1000", "meta cmdline ./busy 2",
        "file 0x1111 %s %s" % (busy, t.build_id(busy)),
        "file 0x2222 %s %s" % (stripped, t.build_id(stripped)),
        "file 0x4444 %s %s" % (spaced.replace(" ", "%20"), t.build_id(spaced)),
        "map 10 42 0x555555554000 0x555555556000 0x1000 0x1111 0x555555553000 5 %s" % busy,
        "maps",
        "ksym 0xffffffffc0001000 t ext4_read ext4",
        "ksym 0xffffffff81200000 T do_syscall_64",
        "ksym 0xffffffff81100000 d some_data",
        "ksym 0xffffffff81000100 T entry_SYSCALL_64",
        "ksyms 10",
        "metric 0 SAMPLES 123", "metric 1 TRACES_SENT 120", "metric 1001 trecord_own 5",
        "metrics 20"]
if libc_qsort:
    spec.append("file 0x3333 %s %s" % (libc, t.build_id(libc)))

# Stacks, leaf first: (user frames [(file, addr, ret)], kernel frames [addr], error code)
U = lambda name, off, ret=True: (0x1111, syms[name] + off, ret)
stacks = {
    "deep": ([U("spin.constprop.0", 0x10, False)] + [U("recurse", 0x20)] * 3 + [U("main", 0x30)], [], None),
    "sort": ([U("cmp_ints", 0x19, False), U("sort_work", 0x30), U("main", 0x30)]
             if not libc_qsort else
             [U("cmp_ints", 0x19, False), (0x3333, libc_qsort + 0x10, True), U("sort_work", 0x30), U("main", 0x30)], [], None),
    "sys": ([U("main", 0x30)], [K["do_syscall_64"] + 0x10, K["entry_SYSCALL_64"] + 0x8], None),
    "mod": ([U("main", 0x30)], [K["ext4_read"] + 0x44, K["do_syscall_64"] + 0x20], None),
    "err": ([U("spin.constprop.0", 0x10, False), U("recurse", 0x20), (None, 4003, False)], [], 4003),
    "strip": ([(0x2222, syms["spin.constprop.0"] + 0x10, False), (0x2222, syms["main"] + 0x30, True)], [], None),
    "spaced": ([(0x4444, syms["spin.constprop.0"] + 0x10, False), (0x4444, syms["main"] + 0x30, True)], [], None),
}
# (stack, pid, tid, comm, weight, time in s from start)
samples = []
for i in range(40):
    samples.append(("deep", 42, 42, "busy", 1, 0.05 * i))
for i in range(25):
    samples.append(("sort", 42, 43, "busy", 1, 0.07 * i))
for i in range(10):
    samples.append(("sys", 42, 43, "busy", 2, 0.1 * i + 0.01))
samples += [("mod", 50, 50, "my_prog", 3, 1.2), ("err", 50, 51, "my_prog", 1, 1.9),
            ("strip", 60, 60, "stripped", 4, 0.3), ("spaced", 61, 61, "spaced", 1, 0.4)]
START = 5000000000


def frame_spec(f):
    fid, addr, ret = f
    if fid is None:
        return "e:%d" % addr
    return "u:0x%x:0x%x%s" % (fid, addr, ":2" if ret else "")


for name, pid, tid, comm, w, ts in samples:
    user, kern, _ = stacks[name]
    fr = ["k:0x%x%s" % (a, ":2" if i else "") for i, a in enumerate(kern)] + [frame_spec(f) for f in user]
    spec.append("sample %d %d %d 1 %d %s %s" % (START + int(ts * 1e9), pid, tid, w, comm, " ".join(fr)))
spec.append("summary %d %d 100 3 0" % (START, START + 2000000000))
tr = os.path.join(d, "a.tr")
t.write_tr(tr, "\n".join(spec) + "\n")
total = sum(s[4] for s in samples)

# ---- expected folded, from addr2line/nm and the ksyms above ----------------
a2l = t.addr2line(busy, sorted({a - (1 if r else 0) for st in stacks.values()
                                for fid, a, r in st[0] if fid == 0x1111}))
symlist = t.text_symbols(busy)


def expect_user(f):
    fid, addr, ret = f
    if fid is None:
        return ["[error: NATIVE_STACK_DELTA_INVALID]"]
    if fid in (0x2222, 0x4444):
        return ["[busy-stripped]"]
    if fid == 0x3333:
        return ["qsort"]
    look = addr - (1 if ret else 0)
    chain = a2l[look]
    return [t.symbol_at(symlist, look)] + [fn for fn, _, _ in reversed(chain)][1:]


def expect_kernel(addr, ret):
    look = addr - (1 if ret else 0)
    return [max(((a, n) for n, a in K.items() if a <= look))[1]]


expected = {}
for name, pid, tid, comm, w, ts in samples:
    user, kern, _ = stacks[name]
    frames = []
    for f in reversed(user):
        frames += expect_user(f)
    for i in reversed(range(len(kern))):
        frames += expect_kernel(kern[i], i > 0)
    key = ";".join([comm.replace(" ", "_")] + frames)
    expected[key] = expected.get(key, 0) + w

folded = t.parse_folded(t.treport(tr, "--folded").stdout)
t.check(sum(folded.values()) == total, "folded: counts sum to the sample weight (%d)" % total)
t.check(folded == expected, "folded: stacks match the addr2line/nm/ksyms expectation",
        "\n".join("%s %s" % kv for kv in sorted(set(folded.items()) ^ set(expected.items()))))
t.check(any("ext4_read" in k for k in folded) and not any("some_data" in k for k in folded),
        "folded: module kernel symbol used, data symbol ignored")
t.check(any("[error: NATIVE_STACK_DELTA_INVALID]" in k for k in folded), "folded: error frame by name")

# ---- perf script ------------------------------------------------------------
ps = t.treport(tr, "--perf-script").stdout
headers = [l for l in ps.splitlines() if l and not l.startswith("\t")]
hdr_re = re.compile(r"^\S.*? +\d+/\d+ +\[\d{3}\] +\d+\.\d{6}: +\d+ cpu-clock: $")
t.check(len(headers) == len(samples) and all(hdr_re.match(h) for h in headers),
        "perf-script: one perf-style header per sample", headers[:3])
frame_re = re.compile(r"^\t {0,15}[0-9a-f]{1,16} \S.* \(\S*\)$")
frames = [l for l in ps.splitlines() if l.startswith("\t")]
t.check(all(frame_re.match(l) for l in frames), "perf-script: frame lines '\\t addr sym+off (dso)'",
        [l for l in frames if not frame_re.match(l)][:3])
sc = t.stackcollapse(ps)
t.check(sc == {k: v * PERIOD for k, v in folded.items()},
        "perf-script: stackcollapse-perf rules give the folded stacks (weighted by period)",
        "\n".join("%s %s" % kv for kv in sorted(set(sc.items()) ^ {(k, v * PERIOD) for k, v in folded.items()})))
times = [float(h.split(":")[0].split()[-1]) for h in headers]
t.check(times == sorted(times), "perf-script: samples in time order")
t.check("ext4_read+0x44 ([ext4])" in ps and "(inlined)" in ps, "perf-script: module dso and inlined lines")
t.check("[unknown] (%s)" % spaced.replace(" ", "_") in ps,
        "perf-script: spaces in a dso path written as '_' (speedscope drops frames whose dso has a space)")

# ---- pprof ------------------------------------------------------------------
if t.have_go():
    pb = os.path.join(d, "a.pb.gz")
    t.treport(tr, "--pprof", "-o", pb)
    pf = t.pprof_folded(pb)
    norm = {}
    for k, v in pf.items():  # unresolved locations show their address; name them like folded
        k = re.sub(r"0x[0-9a-f]+", "[busy-stripped]", k)
        k = k.split(";", 1)[0].replace(" ", "_") + (";" + k.split(";", 1)[1] if ";" in k else "")
        norm[k] = norm.get(k, 0) + v
    t.check(norm == folded, "pprof: go tool pprof -raw gives the folded stacks and counts",
            "\n".join("%s %s" % kv for kv in sorted(set(norm.items()) ^ set(folded.items()))))
    raw = t.pprof_raw(pb)
    t.check("cpu/nanoseconds" in raw and "Period: %d" % PERIOD in raw, "pprof: sample types and period")
    t.check(t.build_id(busy) in raw and "[kernel.kallsyms]" in raw, "pprof: mappings with build-ids")
else:
    print("SKIP: go not installed: pprof checks")

# ---- filters ------------------------------------------------------------------


def fsum(*args):
    return sum(t.parse_folded(t.treport(tr, "--folded", *args).stdout).values())


def wsum(pred):
    return sum(s[4] for s in samples if pred(s))


t.check(fsum("--pid", "50") == wsum(lambda s: s[1] == 50), "filter: --pid")
t.check(fsum("--pid", "50,60") == wsum(lambda s: s[1] in (50, 60)), "filter: --pid list")
t.check(fsum("--tid", "43") == wsum(lambda s: s[2] == 43), "filter: --tid")
t.check(fsum("--comm", "stripped") == wsum(lambda s: s[3] == "stripped"), "filter: --comm")
t.check(fsum("--time", "0.5,1.5") == wsum(lambda s: 0.5 <= s[5] <= 1.5), "filter: --time START,END")
t.check(fsum("--time", "1.0,") == wsum(lambda s: s[5] >= 1.0), "filter: --time START,")
uo = t.parse_folded(t.treport(tr, "--folded", "--user-only").stdout)
t.check(not any("do_syscall_64" in k for k in uo) and sum(uo.values()) == total,
        "filter: --user-only drops kernel frames only")
ko = t.parse_folded(t.treport(tr, "--folded", "--kernel-only").stdout)
t.check(sum(ko.values()) == wsum(lambda s: stacks[s[0]][1]) and not any("main" in k for k in ko),
        "filter: --kernel-only keeps kernel stacks only")
fp = t.parse_folded(t.treport(tr, "--folded", "--folded-pid").stdout)
ft = t.parse_folded(t.treport(tr, "--folded", "--folded-tid").stdout)
t.check(any(k.startswith("busy-42;") for k in fp) and any(k.startswith("busy-42/43;") for k in ft),
        "folded: --folded-pid and --folded-tid roots")
ni = t.parse_folded(t.treport(tr, "--folded", "--no-inline").stdout)
frames = lambda st: sum(v * k.count(";") for k, v in st.items())
inlined = {fn for chain in a2l.values() for fn, _, _ in chain[:-1]}
t.check(sum(ni.values()) == total and frames(ni) < frames(folded) and inlined and
        not any(fn in k.split(";") for k in ni for fn in inlined - set(syms)),
        "folded: --no-inline drops inlined frames")

# ---- merging, summary, info -----------------------------------------------------
tr2 = os.path.join(d, "b.tr")
shutil.copy(tr, tr2)
merged = t.parse_folded(t.treport(tr, tr2, "--folded").stdout)
t.check(merged == {k: 2 * v for k, v in folded.items()}, "merge: two recordings add up")

summ = t.treport(tr).stdout
leaf = {}
for k, v in folded.items():
    leaf[k.split(";")[-1]] = leaf.get(k.split(";")[-1], 0) + v
rows = [l for l in summ.splitlines() if re.match(r"^\s+\d+\.\d+%", l)]
t.check(bool(rows) and rows[0].split()[-1] == "spin.constprop.0" and
        int(rows[0].split()[2]) == leaf["spin.constprop.0"], "summary: top self function and count", rows[:2])
t.check("%d samples" % total in summ.splitlines()[0], "summary: total samples")

info = t.treport(tr, "--info").stdout
t.check(re.search(r"SAMPLE\s+%d" % len(samples), info) is not None, "info: record count per type")
t.check(re.search(r"TRACES_SENT\s+120", info) and re.search(r"trecord_own\s+5", info),
        "info: metrics named from trec_errors.h and the record")
t.check(re.search(r"NATIVE_STACK_DELTA_INVALID\s+1 samples", info) is not None, "info: error frame counts")
t.check("3 lost" in info and "cmdline" in info, "info: summary and META")

t.finish()
