# Helpers of the --perf-data and --firefox tests (check_perf_data.py,
# check_firefox.py): a synthetic recording with processes, threads,
# kernel, error and Python frames; perf's own reading of an export; an
# independent folding of a Firefox Profiler processed profile.
import gzip
import json
import os
import re
import subprocess

import trlib as t

PERIOD = 1000000  # freq 1000 Hz
START = 5000000000


def synthetic(d):
    """A recording of busy's real addresses: pid 42 (threads 42, 43) forks
    pid 50, which execs; kernel, module, error, Python and JIT frames;
    samples of weight 3 and 2. Returns its path."""
    busy = os.path.join(t.WORKLOADS, "busy")
    syms = {name: start for start, size, name in t.text_symbols(busy)}
    bias = 0x555555553000
    spec = ["meta freq_hz 1000", "meta cmdline ./busy 2", "meta command ./busy 2", "meta nr_cpus 2",
            "file 0x1111 %s %s" % (busy, t.build_id(busy)),
            "map 10 42 0x555555554000 0x555555556000 0x1000 0x1111 0x%x 5 %s" % (bias, busy),
            "maps",
            "ksym 0xffffffff81200000 T do_syscall_64", "ksym 0xffffffff81000100 T entry_SYSCALL_64",
            "ksym 0xffffffff81300000 T next_one", "ksym 0xffffffffc0001000 t ext4_read ext4",
            "ksym 0xffffffffc0002000 t ext4_next ext4", "ksyms 10",
            "pev %d fork 50 50 42 0 busy" % (START + 500000000),
            "pev %d exec 50 50 0 0 child ./child" % (START + 600000000),
            "pev %d exit 50 50 0 256 child" % (START + 1500000000),
            "jit %d 42 0x7d0000001000 0x100 jit_hot_loop" % START]

    def U(name, off, ret=True):
        return "u:0x1111:0x%x%s" % (syms[name] + off, ":2" if ret else "")
    deep = [U("spin.constprop.0", 0x10, False)] + [U("recurse", 0x20)] * 3 + [U("main", 0x30)]
    sort = [U("cmp_ints", 0x19, False), U("sort_work", 0x30), U("main", 0x30)]
    sysc = ["k:0xffffffff81200010", "k:0xffffffff81000108:2", U("main", 0x30)]
    mod = ["k:0xffffffffc0001044", "k:0xffffffff81200020:2", U("main", 0x30)]
    err = [U("spin.constprop.0", 0x10, False), U("recurse", 0x20), "e:4003"]
    py = [U("spin.constprop.0", 0x10, False), "p:0x7f0000001000:0x500000007", U("main", 0x30)]
    absolute = ["a:0x%x" % (bias + syms["cmp_ints"] + 0x19), U("main", 0x30)]
    raw = ["a:0x7e0000001234", U("main", 0x30)]
    jit = ["a:0x7d0000001010", "a:0x7d0000001080", U("main", 0x30)]  # JIT code named by a perf map
    rows = []  # (time s, pid, tid, weight, comm, frames)
    for i in range(40):
        rows.append((0.02 * i, 42, 42, 1, "busy", deep))
    for i in range(20):
        rows.append((0.03 * i + 0.001, 42, 43, 1, "worker", sort))
    rows += [(0.1, 42, 42, 1, "busy", sysc), (0.2, 42, 43, 3, "worker", mod),
             (0.3, 42, 42, 1, "busy", err), (0.4, 42, 42, 1, "busy", py),
             (0.45, 42, 42, 1, "busy", absolute), (0.46, 42, 42, 1, "busy", raw),
             (0.47, 42, 42, 2, "busy", jit)]
    for i in range(10):  # the child, before and after its exec
        rows.append((0.55 + 0.1 * i, 50, 50, 1, "busy" if i < 1 else "child", deep if i % 2 else sort))
    for ts, pid, tid, w, comm, fr in rows:
        spec.append("sample %d %d %d 1 %d %s %s" % (START + int(ts * 1e9), pid, tid, w,
                                                  comm.replace(" ", "%20"), " ".join(fr)))
    spec.append("summary %d %d %d 0 0" % (START, START + 2000000000, len(rows)))
    tr = os.path.join(d, "syn.tr")
    t.write_tr(tr, "\n".join(spec) + "\n")
    return tr


# ---- perf -----------------------------------------------------------------

def have_perf():
    return subprocess.run(["sh", "-c", "perf version"], capture_output=True).returncode == 0


def perf(data, *args, home=None):
    """perf with the export's build-id cache (and a HOME of its own: no
    ~/.debug or ~/.perfconfig of the machine)."""
    env = dict(os.environ, HOME=home or os.path.dirname(data), PAGER="cat")
    return subprocess.run(["perf", "--buildid-dir", data + ".debug"] + list(args) + ["-i", data],
                          capture_output=True, text=True, env=env)


def perf_script_folded(data):
    """perf script through stackcollapse-perf's rules, in samples; and the
    number of samples perf printed."""
    r = perf(data, "script", "--max-stack", "1024")
    n = sum(1 for line in r.stdout.splitlines() if line and not line[0].isspace())
    m = re.search(r":\s+(\d+) cpu-clock:", r.stdout)  # every sample has the one period
    period = int(m.group(1)) if m else 1
    return {k: v // period for k, v in t.stackcollapse(r.stdout).items()}, n, r


def perf_report_self(data):
    """perf report's self overhead by (dso, symbol): {(dso, sym): percent}."""
    r = perf(data, "report", "--stdio", "--no-children", "--sort", "dso,sym", "-g", "none")
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$", line)
        if m:
            out[(m.group(2), m.group(3))] = float(m.group(1))
    return out, r


def treport_self(tr):
    """treport's summary, first table: {(dso, sym): percent}."""
    out = {}
    for line in t.treport(tr).stdout.split("# Top functions by total")[0].splitlines():
        m = re.match(r"^\s+([\d.]+)%\s+[\d.]+%\s+\d+\s+(\S+)\s+(.*?)\s*$", line)
        if m:
            out[(m.group(2), m.group(3))] = float(m.group(1))
    return out


def folded_no_inline(tr):
    return t.parse_folded(t.treport(tr, "--folded", "--no-inline").stdout)


def match_plt(perf_stacks, folded):
    """perf names PLT stubs itself (name@plt) from a binary it finds on
    this machine; treport names them by the symbol before. Matches the
    stacks that differ only there. Returns (unmatched perf, unmatched
    folded, number matched that way)."""
    a = dict(perf_stacks)
    b = dict(folded)
    for k in set(a) & set(b):
        n = min(a[k], b[k])
        a[k] -= n
        b[k] -= n
    a = {k: v for k, v in a.items() if v}
    b = {k: v for k, v in b.items() if v}
    via = 0
    for k in list(a):
        if "@plt" not in k:
            continue
        fk = k.split(";")
        for k2 in list(b):
            f2 = k2.split(";")
            if len(f2) == len(fk) and all(x == y or x.endswith("@plt") for x, y in zip(fk, f2)):
                n = min(a[k], b[k2])
                a[k] -= n
                b[k2] -= n
                via += n
                if not b[k2]:
                    del b[k2]
                if not a[k]:
                    del a[k]
                    break
    return a, b, via


# ---- Firefox Profiler ---------------------------------------------------------

def load_profile(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def _clean(s):  # what --folded does to a name
    return s.replace('"', "").replace("'", "").replace(";", ":")


def firefox_folded(p):
    """The profile's samples as folded stacks rooted at "PID/TID":
    {stack: summed weight}. Python frames read "function (file:line)" as
    in --folded."""
    sh = p["shared"]
    S, st, fr, fn, src = (sh["stringArray"], sh["stackTable"], sh["frameTable"], sh["funcTable"],
                          sh["sources"])
    cats = [c["name"] for c in p["meta"]["categories"]]

    def name(f):
        func = fr["func"][f]
        n = S[fn["name"][func]]
        if cats[fr["category"][f]] == "Python" and fn["source"][func] is not None:
            line = fr["line"][f]
            n = "%s (%s:%s)" % (n, os.path.basename(S[src["filename"][fn["source"][func]]]),
                                "?" if line is None else line)
        return _clean(n)
    memo = {}

    def frames(s):
        if s not in memo:
            out, k = [], s
            while True:
                out.append(name(st["frame"][k]))
                if st["prefixOffset"][k] == 0:
                    break
                k -= st["prefixOffset"][k]
            memo[s] = out[::-1]
        return memo[s]
    res = {}
    for th in p["threads"]:
        sm = th["samples"]
        for i in range(sm["length"]):
            s = sm["stack"][i]
            key = ";".join(["%s/%s" % (th["pid"], th["tid"])] + (frames(s) if s is not None else []))
            res[key] = res.get(key, 0) + (sm["weight"][i] if sm["weight"] is not None else 1)
    return res


def folded_by_tid(tr):
    """treport --folded --folded-tid with the root reduced to "PID/TID"."""
    out = {}
    for k, v in t.parse_folded(t.treport(tr, "--folded", "--folded-tid").stdout).items():
        root, sep, rest = k.partition(";")
        key = re.sub(r"^.*-(\d+/\d+)$", r"\1", root) + sep + rest
        out[key] = out.get(key, 0) + v
    return out
