"""make bench: unwind quality on JIT and Go code, trec against perf -g and
perf --call-graph dwarf (rows of bench.py's unwind-quality table, and the
runtime table: BENCH_ONLY=runtimes runs only these rows).

Each runtime runs its tests/runtimes workload once per tool at the bench's
middle frequency; chain_share.py measures, after the first 0.5 s (JIT
warm-up), the share of hotLeaf samples whose stack holds hotMiddle,
hotOuter, hotMain and the runtime's main. Of all the workload's samples
with a user stack, the share that reaches its thread's root (ROOT_RE), and
per sample: the file's bytes and the time to read it back as text
(treport --perf-script, perf script). A runtime that is not installed is
left out with a note.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import chain_share  # noqa: E402
import stacks  # noqa: E402

SKIP_SECS = 0.5
TOOLS = ["trec", "perf-g", "perf-dwarf"]
# Outermost frames that are a thread's root: the program's entry, a
# thread's start (glibc, HotSpot, Go's runtime; Go's g0 stacks end at their
# stack switch, README "Go stacks end at their roots"). Error frames are
# never roots.
ROOT_RE = re.compile(r"^(_start|__libc_start_main|__libc_start_call_main|clone3?|__clone3?|"
                     r"start_thread|thread_native_entry|JavaMain|node::Start|"
                     r"runtime\.(goexit|clone|rt0_go|mstart|sigtramp|systemstack|mcall|"
                     r"morestack)(\.abi0)?)$")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def pythons():
    root = os.environ.get("PYENV_ROOT", "/root/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3.1[2-9]")))
    return [p for p in found if os.access(p, os.X_OK)]


def built(cmd, **kw):
    """Runs a build step; a failure leaves that row out rather than the bench."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        log("bench: %s failed, row left out:\n%s" % (" ".join(cmd), p.stdout[-1000:]))
    return p.returncode == 0


def build(out):
    """Builds the Java and Go workloads into out; returns the rows that can
    run: (label, preset, command without the seconds)."""
    os.makedirs(out, exist_ok=True)
    rows = []
    if shutil.which("node"):
        rows.append(("node --perf-basic-prof", "node",
                     ["node", "--perf-basic-prof", os.path.join(HERE, "hot.js")]))
    else:
        log("bench: node not installed: no node row")
    if shutil.which("java") and shutil.which("javac") and \
            built(["javac", "-d", out, os.path.join(HERE, "Hot.java")]):
        for label, fp in (("java -XX:+PreserveFramePointer, map at exit", True),
                          ("java without PreserveFramePointer, map at exit", False)):
            rows.append((label, "java",
                         ["java"] + (["-XX:+PreserveFramePointer"] if fp else []) +
                         ["-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,Hot::hot*",
                          "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit",
                          "-cp", out, "Hot"]))
    else:
        log("bench: no java row (java/javac missing or javac failed)")
    if shutil.which("go"):
        env = dict(os.environ, CGO_ENABLED="0")
        if not env.get("HOME"):
            env["GOCACHE"] = os.path.join(out, "gocache")
        for label, flags in (("go", []), ("go stripped", ["-ldflags=-s -w"])):
            binary = os.path.join(out, "hot-" + label.replace(" ", "-"))
            if built(["go", "build"] + flags + ["-o", binary, os.path.join(HERE, "hot.go")],
                     env=env):
                rows.append((label, "go", [binary]))
    else:
        log("bench: go not installed: no go rows")
    for py in pythons()[:1]:
        ver = os.path.basename(py)
        rows.append(("%s -X perf" % ver, "python", [py, "-X", "perf", os.path.join(HERE, "hot_perf.py")]))
    return rows


def pid_of(stdout):
    for line in stdout.splitlines():
        if ": pid " in line:
            return line.rsplit(" ", 1)[1]
    return None


def root_share(path):
    """(samples with a user stack that end at a root, samples with a user
    stack) of the workload's threads (not trecord's or perf's)."""
    reached = total = 0
    with open(path, errors="replace") as fh:
        for header, frames in stacks.parse_samples_headers(fh):
            if re.match(r"(trecord|perf)[ -]", header or ""):
                continue
            user = [(sym, dso) for sym, dso in frames
                    if dso != "inlined" and not stacks.is_kernel_dso(dso)]
            if not user:
                continue
            total += 1
            errors = any(sym.startswith("[error:") for sym, _ in user)
            reached += not errors and bool(ROOT_RE.match(user[-1][0]))
    return reached, total


def quality(bench, secs=2.5, only=None):
    """Fills bench.res["quality"]["LABEL/TOOL"] = [whole chain, leaf
    samples], bench.res["runtimes"] with chain_share's whole result and
    bench.res["runtime_costs"] with roots, bytes and reading time.
    only: a regex rows' labels must match."""
    out = os.path.join(bench.out, "runtimes")
    rows = build(out)
    goroots = os.path.join(bench.a.workloads, "goroots")
    if os.access(goroots, os.X_OK):  # every kind of Go thread (no hotLeaf)
        rows.append(("go roots.go (GC, scheduler, signals)", "go", [goroots]))
    rows = [r for r in rows if not only or re.search(only, r[0])]
    bench.res["runtimes"] = {}
    bench.res["runtime_costs"] = {}
    bench.res["runtime_rows"] = [label for label, _, _ in rows]
    tools = [t for t in TOOLS if t in bench.tools]
    for i, (label, preset, cmd) in enumerate(rows):
        maps = []
        for tool in tools:
            tag = "rt%d-%s" % (i, label.split()[0])
            path = os.path.join(out, "%s.%s.%s" % (tag, tool, "tr" if tool == "trec" else "data"))
            full = bench.record_cmd(tool, bench.mid_freq, path, cmd + [str(secs)])
            # cwd: node --perf-basic-prof leaves V8 logs (isolate-*-v8.log) there.
            p = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=out)
            if p.returncode != 0:
                log("bench: %s exited %d:\n%s" % (" ".join(full), p.returncode, p.stderr[-1000:]))
                continue
            pid = pid_of(p.stdout)
            if pid:
                maps += ["/tmp/perf-%s.map" % pid, "/tmp/jit-%s.dump" % pid]
            text = path + ".txt"
            report = [bench.a.treport, "--perf-script", path] if tool == "trec" else \
                ["perf", "script", "-i", path]
            t0 = time.monotonic()
            with open(text, "w") as fh:
                subprocess.run(report, stdout=fh, stderr=subprocess.DEVNULL, check=False)
            read_secs = time.monotonic() - t0
            n = bench.samples(tool, path)
            leaf, callers, root, leaf_from = chain_share.PRESETS[preset]
            with open(text, errors="replace") as fh:
                r = chain_share.measure(fh, leaf, callers, root, leaf_from, show=3,
                                        comm="(?!trecord |perf )", skip_secs=SKIP_SECS)
            key = "%s/%s" % (label, tool)
            bench.res["quality"][key] = [r["chain_samples"], r["leaf_samples"]]
            bench.res["runtimes"][key] = r
            bench.res["runtime_costs"][key] = {
                "root": root_share(text), "samples": n, "bytes": os.path.getsize(path),
                "read_us": read_secs / n * 1e6 if n else None}
            os.unlink(path)
        # The runtime's perf map is needed until every report has run.
        for m in maps:
            if os.path.exists(m):
                os.unlink(m)
        log("runtime %s: %s" % (label, ", ".join(
            "%s %s" % (t, cell(bench.res["quality"].get("%s/%s" % (label, t)))) for t in tools)))


def cell(q):
    if not q:
        return "n/a"
    if not q[1]:
        return "no leaf named"
    return "%.1f%% (%d/%d)" % (100.0 * q[0] / q[1], q[0], q[1])


def pct(q):
    return "n/a" if not q or not q[1] else "%.1f%% (%d/%d)" % (100.0 * q[0] / q[1], q[0], q[1])


def runtime_table(res, tools):
    """The runtime table: one line per runtime and profiler."""
    L = ["| runtime | profiler | samples | reach their root | hotLeaf's whole chain | "
         "B/sample | read us/sample |", "|---|---|---:|---:|---:|---:|---:|"]
    for label in res.get("runtime_rows", []):
        for t in tools:
            key = "%s/%s" % (label, t)
            c = res.get("runtime_costs", {}).get(key)
            if not c:
                L.append("| %s | %s | n/a | | | | |" % (label, t))
                continue
            L.append("| %s | %s | %d | %s | %s | %s | %s |" % (
                label, t, c["samples"], pct(c["root"]), cell(res["quality"].get(key)),
                "%.0f" % (c["bytes"] / c["samples"]) if c["samples"] else "n/a",
                "%.1f" % c["read_us"] if c["read_us"] is not None else "n/a"))
    L += ["", "Reach their root: of the workload's samples with a user stack (all its "
          "threads), the share whose outermost frame is its thread's root (`_start`, "
          "glibc's thread start, `JavaMain`, `runtime.goexit`, `runtime.clone`, Go's g0 "
          "stack switches) with no error frame. hotLeaf's whole chain: of the samples "
          "whose leaf is `hotLeaf`, after %.1f s of warm-up, the share whose stack holds "
          "`hotMiddle`, `hotOuter`, `hotMain` and the runtime's main. B/sample: the "
          "recording's bytes (trec: symbols embedded; perf: the perf.data, the JIT's "
          "perf map apart) per sample; read: `treport --perf-script` or `perf script` "
          "wall time per sample (one run, startup included)." % SKIP_SECS]
    return L


def table_rows(res, rows, tools):
    """The runtime rows of the unwind-quality table, and a note under it."""
    lines = ["| %s | %s |" % (label, " | ".join(cell(res["quality"].get("%s/%s" % (label, t)))
                                               for t in tools)) for label in rows]
    if rows:
        lines += ["", "Runtime rows (tests/runtimes): of the samples whose leaf is `hotLeaf` "
                  "(Python: the innermost Python frame), after the first %.1f s of JIT "
                  "warm-up, the share whose stack holds `hotMiddle`, `hotOuter`, `hotMain` "
                  "and the runtime's main (`node::Start`, `JavaMain`, `runtime.main` or "
                  "`runtime.goexit`, `Py_RunMain`); \"no leaf named\": no sample's leaf "
                  "was named hotLeaf." % SKIP_SECS]
    return lines
