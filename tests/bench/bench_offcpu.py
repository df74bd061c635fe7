#!/usr/bin/env python3
"""Off-CPU cost (issue 13), side by side in one run: `taskset -c 0 perf
bench sched pipe -T` (two threads on one CPU handing a byte back and forth:
two blocking switches per loop) alone, under `trecord --off-cpu` (default threshold, and
--off-cpu-min 0: every wait stored) and under libbpf-tools' offcputime
(stacks by frame pointer, aggregated in BPF).

Each tool attaches with -p to a process that waits GATE seconds before it
execs the benchmark, so attach and teardown are outside the benchmark's own
"usecs/op", which is the figure compared. Runs alternate between the
configurations. Bytes: trec's file (--no-archive) or offcputime's printed
report, per loop and per blocking switch trec counted (OFFCPU_SWITCHES;
fewer than 2 per loop: a read that finds its byte already there does not
block; offcputime's row uses the median of trec's counts). BPF ns per
loop: the run time (kernel.bpf_stats_enabled) of each tool's sched_switch
program, its tail calls included, over the loops: the in-kernel cost,
which other jobs on a shared machine disturb less than the wall time.
The program also runs, and returns at once, for every other thread's
switches on the machine; both tools pay that alike.

usage: bench_offcpu.py --trecord T --treport R [--runs 5] [--loops 200000]
                       [--out FILE.json] [--readme README.md]
       bench_offcpu.py --from-json FILE.json [--readme README.md]
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

GATE = 3.0


def start_gated(loops):
    # One CPU: every loop is two switches there, not cross-CPU wake-ups
    # whose cost depends on where the scheduler put the threads.
    cmd = "sleep %s; exec taskset -c 0 perf bench sched pipe -T -l %d" % (GATE, loops)
    return subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.PIPE, text=True)


def usecs_per_op(text):
    m = re.search(r"([\d.]+) usecs/op", text)
    if not m:
        raise SystemExit("bench_offcpu: no usecs/op in perf bench output:\n" + text)
    return float(m.group(1))


def run_alone(loops, tmp):
    p = start_gated(loops)
    out, _ = p.communicate()
    return usecs_per_op(out), None, None, None


def trec_bpf_ns(verbose_err):
    """Run time of trecord's sched_switch program (tail calls included)."""
    m = re.search(r"prog trec_offcpu_switch .*, ([\d.]+) ms in all", verbose_err)
    return float(m.group(1)) * 1e6 if m else None


def bpf_progs():
    r = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True)
    return {p["id"]: p for p in json.loads(r.stdout or "[]")}


def offcputime_bpf_ns(before):
    """Run time of the sched_switch program offcputime loaded (a program id
    that was not there before it started), while it is loaded."""
    total = None
    for pid, prog in bpf_progs().items():
        if pid not in before and prog.get("name") == "sched_switch":
            total = (total or 0) + prog.get("run_time_ns", 0)
    return total


def run_trec(a, loops, tmp, min_us):
    p = start_gated(loops)
    tr = os.path.join(tmp, "off.tr")
    rec = subprocess.Popen([a.trecord, "--off-cpu", "--off-cpu-min", str(min_us), "--no-archive",
                            "-v", "-f", "-o", tr, "-p", str(p.pid)], stderr=subprocess.PIPE,
                           text=True)
    out, _ = p.communicate()
    _, err = rec.communicate(timeout=60)
    if rec.returncode != 0:
        raise SystemExit("bench_offcpu: trecord failed:\n" + err[-2000:])
    info = subprocess.run([a.treport, "--info", tr], capture_output=True, text=True).stdout
    m = re.search(r"^\s*OFFCPU_SWITCHES\s+(\d+)", info, re.M)
    return (usecs_per_op(out), os.path.getsize(tr), int(m.group(1)) if m else None,
            trec_bpf_ns(err))


def run_offcputime(loops, tmp):
    p = start_gated(loops)
    rep = os.path.join(tmp, "offcputime.txt")
    before = bpf_progs()
    with open(rep, "w") as f:
        tool = subprocess.Popen(["offcputime", "-p", str(p.pid)], stdout=f,
                                stderr=subprocess.DEVNULL)
        out, _ = p.communicate()
        bpf_ns = offcputime_bpf_ns(before)
        tool.send_signal(signal.SIGINT)
        tool.wait(timeout=60)
    return usecs_per_op(out), os.path.getsize(rep), None, bpf_ns


BEGIN, END = "<!-- bench-offcpu:begin -->", "<!-- bench-offcpu:end -->"


def table(data):
    """The README table of a run's JSON (--out)."""
    loops = data["loops"]
    L = ["Off-CPU: `taskset -c 0 perf bench sched pipe -T -l %d`, median of %d runs%s." % (
        loops, data.get("runs", 5),
        "; load average %.1f at the end" % data["load"] if "load" in data else ""),
         "", "| configuration | usecs/op | vs alone | BPF ns per loop | bytes per loop "
         "| bytes per switch | blocking switches (trec) |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in data["rows"]:
        sw = statistics.median(r["switches_seen"]) if r["switches_seen"] else data["switches"]
        size = statistics.median(r["bytes"]) if r["bytes"] else None
        L.append("| %s | %.2f | %.2fx | %s | %s | %s | %s |" % (
            r["config"], r["usecs_per_op"], r["ratio"],
            "%.0f" % (statistics.median(r["bpf_ns"]) / loops) if r["bpf_ns"] else "-",
            "%.3f" % (size / loops) if size is not None else "-",
            "%.3f" % (size / sw) if size is not None else "-",
            "%d" % sw if r["switches_seen"] else "-"))
    return "\n".join(L) + "\n"


def emit(data, readme):
    text = table(data)
    print("\n" + text)
    if readme:
        with open(readme) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            raise SystemExit("bench_offcpu: %s has no %s ... %s markers" % (readme, BEGIN, END))
        head, rest = doc.split(BEGIN, 1)
        with open(readme, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + rest.split(END, 1)[1])


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--trecord")
    ap.add_argument("--treport")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--loops", type=int, default=200000)
    ap.add_argument("--out")
    ap.add_argument("--readme", help="write the table into this README's bench-offcpu markers")
    ap.add_argument("--from-json", help="no run: the table of an earlier run's --out")
    a = ap.parse_args(argv)
    if a.from_json:
        with open(a.from_json) as f:
            emit(json.load(f), a.readme)
        return 0
    if not a.trecord or not a.treport:
        ap.error("--trecord and --treport are needed for a run")
    for tool in ("perf", "offcputime"):
        if not shutil.which(tool):
            raise SystemExit("bench_offcpu: %s is missing (make deps)" % tool)
    configs = [
        ("alone", lambda t: run_alone(a.loops, t)),
        ("trecord --off-cpu (waits >= 10 us stored)", lambda t: run_trec(a, a.loops, t, 10)),
        ("trecord --off-cpu --off-cpu-min 0 (every wait)", lambda t: run_trec(a, a.loops, t, 0)),
        ("offcputime (libbpf-tools, aggregated in BPF)", lambda t: run_offcputime(a.loops, t)),
    ]
    res = {name: [] for name, _ in configs}
    stats = "/proc/sys/kernel/bpf_stats_enabled"
    old_stats = open(stats).read().strip()
    try:
        with open(stats, "w") as f:
            f.write("1")
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(a.runs):
                for name, fn in configs:
                    res[name].append(fn(tmp))
                    time.sleep(0.2)
    finally:
        with open(stats, "w") as f:
            f.write(old_stats)
    base = statistics.median(x[0] for x in res["alone"])
    all_seen = [x[2] for n, _ in configs for x in res[n] if x[2] is not None]
    switches = statistics.median(all_seen) if all_seen else 2 * a.loops
    rows = []
    for name, _ in configs:
        us = statistics.median(x[0] for x in res[name])
        rows.append({"config": name, "usecs_per_op": us, "ratio": us / base,
                     "bpf_ns": [x[3] for x in res[name] if x[3] is not None],
                     "bytes": [x[1] for x in res[name] if x[1] is not None],
                     "switches_seen": [x[2] for x in res[name] if x[2] is not None],
                     "runs": res[name]})
    data = {"loops": a.loops, "runs": a.runs, "switches": switches, "rows": rows,
            "load": os.getloadavg()[0]}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(data, f, indent=1)
    emit(data, a.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
