#!/usr/bin/env python3
"""A large fresh binary's first second (issue 15): gcc's cc1 (32 MB, no
frame pointers) compiling a generated 3,000-function file at 999 Hz.

Configurations, interleaved round by round on the same compile:
  trec cold / warm           empty delta cache / cache filled beforehand
  trec ... --no-deferred-unwind   the same without deferred unwinding
  perf -g, perf --call-graph dwarf
For cc1's first second (from each cc1's first sample): samples, the share
whose stack reaches main, and (trec) the share ending in NATIVE_NO_PAGE_INFO.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

FREQ = 999
FUNCS = 3000
WINDOW_S = 1.0


def gen_source(path):
    with open(path, "w") as f:
        for i in range(FUNCS):
            f.write("int f%d(int x) { int s = 0; for (int j = 0; j < x; j++) "
                    "s += j * %d ^ (s >> 3); return s + %d; }\n" % (i, i, i))


def first_second(samples):
    """samples: (pid, time, [frame names], last frame is NO_PAGE_INFO) of cc1."""
    first, n, main, nopage = {}, 0, 0, 0
    for pid, t, names, np in samples:
        t0 = first.setdefault(pid, t)
        if t - t0 > WINDOW_S:
            continue
        n += 1
        main += "main" in names
        nopage += np
    return n, main, nopage


def trec_samples(treport, path):
    out = subprocess.run([treport, "--json", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        s = json.loads(line)
        if s["comm"] == "cc1":
            names = [f["name"] for f in s["frames"]]
            yield s["pid"], s["time"], names, bool(names) and \
                names[-1] == "[error: NATIVE_NO_PAGE_INFO]"


def perf_samples(path):
    out = subprocess.run(["perf", "script", "--no-inline", "-i", path, "-F", "comm,pid,time,ip,sym"],
                         capture_output=True, text=True).stdout
    head, names = None, []
    for line in out.splitlines() + [""]:
        if not line.strip():
            if head and head[0] == "cc1":
                yield head[1], head[2], names, False
            head, names = None, []
        elif line[0].isspace():
            parts = line.split(None, 1)
            names.append(parts[1].split("+0x")[0] if len(parts) > 1 else "")
        else:
            w = line.split()
            try:
                head = (w[0], int(w[1]), float(w[2].rstrip(":")))
            except (IndexError, ValueError):
                head = None
    return


def run_all(b):
    """Fills b.res["coldstart"]: per configuration the medians over rounds."""
    if not b.have_trec or not shutil.which("gcc"):
        return
    work = tempfile.mkdtemp(prefix="coldstart.", dir=b.out)
    src = os.path.join(work, "gen.c")
    gen_source(src)
    compile_cmd = ["gcc", "-O2", "-c", src, "-o", os.path.join(work, "gen.o")]
    warm_cache = os.path.join(work, "warm-cache")
    subprocess.run([b.a.trecord, "-q", "-o", os.path.join(work, "prewarm.tr"), "--"] +
                   compile_cmd, env=dict(os.environ, TREC_CACHE_DIR=warm_cache), check=True)
    configs = {
        "trec cold": ([], True), "trec warm": ([], False),
        "trec cold, no deferral": (["--no-deferred-unwind"], True),
        "trec warm, no deferral": (["--no-deferred-unwind"], False),
        "perf -g": (["-g"], None), "perf dwarf": (["--call-graph", "dwarf"], None),
    }
    names = list(configs)
    rows = {n: [] for n in names}
    runs = max(1, min(b.a.runs, 3))
    for r in range(runs):
        for n in names[r % len(names):] + names[:r % len(names)]:
            args, cold = configs[n]
            if cold is None:
                path = os.path.join(work, "perf.data")
                subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ)] + args +
                               ["--no-buildid-cache", "-o", path, "--"] + compile_cmd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                rows[n].append(first_second(perf_samples(path)))
                continue
            cache = os.path.join(work, "cold-cache") if cold else warm_cache
            if cold:
                shutil.rmtree(cache, ignore_errors=True)
            path = os.path.join(work, "rec.tr")
            subprocess.run([b.a.trecord, "-q", "-F", str(FREQ), "-f"] + args + ["-o", path, "--"] +
                           compile_cmd, env=dict(os.environ, TREC_CACHE_DIR=cache), check=True,
                           stdout=subprocess.DEVNULL)
            rows[n].append(first_second(trec_samples(b.a.treport, path)))
        print("coldstart round %d/%d done" % (r + 1, runs), file=sys.stderr, flush=True)
    res = {}
    for n, v in rows.items():
        res[n] = {
            "samples": statistics.median(x[0] for x in v),
            "main_pct": statistics.median(100.0 * x[1] / x[0] if x[0] else 0 for x in v),
            "nopage_pct": statistics.median(100.0 * x[2] / x[0] if x[0] else 0 for x in v),
        }
    b.res["coldstart"] = {"rows": res, "runs": runs, "load": os.getloadavg()[0]}
    shutil.rmtree(work, ignore_errors=True)


def table_rows(res):
    c = res.get("coldstart")
    if not c:
        return []
    L = ["", "**Cold start**: gcc's `cc1` (32 MB, no frame pointers) compiling a generated "
         "%d-function file at %d Hz; cc1's first second, median of %d interleaved rounds "
         "(load average %.1f at the end). trec cold: empty delta cache (TREC_CACHE_DIR); "
         "warm: filled by an earlier recording." % (FUNCS, FREQ, c["runs"], c["load"]), "",
         "| | samples | reach main | end in NATIVE_NO_PAGE_INFO |", "|---|---:|---:|---:|"]
    for n, v in c["rows"].items():
        L.append("| %s | %.0f | %.1f%% | %s |" % (
            n, v["samples"], v["main_pct"], "%.1f%%" % v["nopage_pct"] if n.startswith("trec")
            else "n/a"))
    return L


def main():
    """Standalone: only these tables (make bench runs them with the rest)."""
    import bench_standalone
    return bench_standalone.main(__doc__, run_all, table_rows)


if __name__ == "__main__":
    sys.exit(main())
