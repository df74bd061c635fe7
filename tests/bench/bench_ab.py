"""Side by side: trecord builds (or one build under other environments)
against each other and perf record -g, on the 250-deep FP-less stacks of
bench_costs.py (`deep` recursion, `chain` of 250 distinct functions) at
4000 Hz, in paired interleaved rounds (every round runs every
configuration, in a rotating order, so load drifts hit them alike):

  unwind    BPF ns per trace: SAMPLER_NS per sent trace (`--max-cpu 50`),
            and kernel.bpf_stats_enabled's run time per run of the
            perf_event programs
  slowdown  the workload's own CPU time for fixed work, alone, under perf
            record -g and under each trecord; per round the ratio to
            perf -g's run of that round, median and a 95% confidence
            interval of the median (order statistics)

The rounds' raw numbers go to OUT_DIR/bench_ab.json.

usage: bench_ab.py --treport T --workloads W --out-dir D
                   --trec NAME=PATH[:VAR=VALUE,...] (two or more) [--rounds N]
e.g. --trec main=/tmp/main/build/trecord --trec delta=build/trecord
     --trec whole=build/trecord:TREC_NO_TRACE_DELTA=1
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bench_costs  # noqa: E402
import bpf_owned  # noqa: E402

STACKS = bench_costs.STACKS
FREQ = bench_costs.FREQ


def parse_trec(spec):
    name, rest = spec.split("=", 1)
    path, _, envs = rest.partition(":")
    env = dict(os.environ)
    for kv in filter(None, envs.split(",")):
        k, v = kv.split("=", 1)
        env[k] = v
    return name, path, env


def run_cpu(cmd, env=None):
    """The workload's own cpu_ns (it prints it) of one run, in seconds."""
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    return int(p.stderr.rsplit("cpu_ns=", 1)[1].split()[0]) / 1e9


def unwind_once(a, trec, work, path):
    name, exe, env = trec
    cmd = [exe, "-q", "-f", "--max-cpu", "50", "-F", str(FREQ), "-o", path, "--"] + work
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    last = None
    while proc.poll() is None:
        try:
            last = bpf_owned.progs(proc.pid) or last
        except (subprocess.SubprocessError, OSError):
            pass
        time.sleep(0.1)
    proc.stderr.read()
    m = bench_costs.info_metrics(a.treport, path)
    sent = m.get("TRACES_SENT", 0)
    perf = [p for p in (last or []) if p.get("type") == "perf_event"]
    runs = max((p.get("run_cnt", 0) for p in perf), default=0)
    return {"ns_trace": m.get("SAMPLER_NS", 0) / sent if sent else None,
            "stats_ns_run": sum(p.get("run_time_ns", 0) for p in perf) / runs if runs else None,
            "deltas": m.get("TRACES_SENT_DELTA", 0) / sent if sent else None}


def median_ci(v):
    """Median and a 95% distribution-free confidence interval of it."""
    v = sorted(x for x in v if x is not None)
    n = len(v)
    if n < 6:
        return statistics.median(v), v[0], v[-1]
    k = max(0, int(math.floor(n / 2 - 1.96 * math.sqrt(n) / 2)))
    return statistics.median(v), v[k], v[n - 1 - k]


def rotate(keys, r):
    return keys[r % len(keys):] + keys[:r % len(keys)]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treport", required=True)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--trec", action="append", required=True)
    ap.add_argument("--rounds", type=int, default=21, help="slowdown rounds (0: none)")
    ap.add_argument("--unwind-rounds", type=int, default=5)
    ap.add_argument("--secs", type=float, default=1.0)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    trecs = [parse_trec(s) for s in a.trec]
    b = types.SimpleNamespace(a=types.SimpleNamespace(workloads=a.workloads))
    units = {n: bench_costs.calibrate(b, binary, args, a.secs) for n, binary, args in STACKS}
    works = {n: bench_costs.work_cmd(b, binary, units[n], args) for n, binary, args in STACKS}

    # BPF time per trace, bpf_stats on.
    stats = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(stats).read().strip()
    un = {(w, t[0]): [] for w in works for t in trecs}
    try:
        with open(stats, "w") as f:
            f.write("1")
        for r in range(a.unwind_rounds):
            for w, t in rotate([(w, t) for w in works for t in trecs], r):
                work = bench_costs.work_cmd(b, dict((n, x) for n, x, _ in STACKS)[w],
                                            2 * units[w], dict((n, y) for n, _, y in STACKS)[w])
                un[(w, t[0])].append(unwind_once(a, t, work, os.path.join(a.out_dir, "ab.tr")))
    finally:
        with open(stats, "w") as f:
            f.write(old)

    # Slowdown, every configuration every round.
    cfg = {}
    for w, work in works.items():
        cfg[(w, "alone")] = (work, None)
        cfg[(w, "perf-g")] = (["perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(FREQ),
                               "--no-buildid-cache", "-o", os.path.join(a.out_dir, "ab.data"),
                               "--"] + work, None)
        for name, exe, env in trecs:
            cfg[(w, name)] = ([exe, "-q", "-f", "-F", str(FREQ), "-o",
                               os.path.join(a.out_dir, "ab-%s.tr" % name), "--"] + work, env)
    cpu = {k: [] for k in cfg}
    load = [os.getloadavg()[0]]
    for r in range(a.rounds):
        for k in rotate(list(cfg), r):
            cpu[k].append(run_cpu(*cfg[k]))
    load.append(os.getloadavg()[0])
    with open(os.path.join(a.out_dir, "bench_ab.json"), "w") as f:
        json.dump({"units": units, "load": load,
                   "unwind": {"%s/%s" % k: v for k, v in un.items()},
                   "cpu_s": {"%s/%s" % k: v for k, v in cpu.items()}}, f, indent=1)

    print("BPF cost at %d Hz (--max-cpu 50), median of %d interleaved rounds (IQR):" %
          (FREQ, a.unwind_rounds))
    print("| workload | trecord | SAMPLER_NS ns/trace | bpf_stats ns/run | deltas/traces |")
    print("|---|---|---:|---:|---:|")
    for w in works:
        for name, _, _ in trecs:
            rows = un[(w, name)]
            cell = []
            for key, spec in (("ns_trace", ",.0f"), ("stats_ns_run", ",.0f"), ("deltas", ".2f")):
                v = [x[key] for x in rows if x[key] is not None]
                if not v:
                    cell.append("n/a")
                    continue
                q = bench_costs.quartiles(v)
                cell.append("%s (%s-%s)" % (format(statistics.median(v), spec),
                                            format(q[0], spec), format(q[1], spec)))
            print("| %s | %s | %s |" % (w, name, " | ".join(cell)))
    if not a.rounds:
        return 0
    print()
    print("Slowdown at %d Hz, %d interleaved rounds (load %.1f, then %.1f): CPU time / median "
          "alone; and per round / that round's perf -g, median [95%% CI]:" %
          (FREQ, a.rounds, load[0], load[1]))
    print("| workload | recorder | / alone | / perf -g [95% CI] |")
    print("|---|---|---:|---:|")
    for w in works:
        base = statistics.median(cpu[(w, "alone")])
        for rec in ["perf-g"] + [t[0] for t in trecs]:
            alone = statistics.median(c / base for c in cpu[(w, rec)])
            vs = median_ci([c / p for c, p in zip(cpu[(w, rec)], cpu[(w, "perf-g")])])
            print("| %s | %s | %.3fx | %.3f [%.3f-%.3f] |" % ((w, rec, alone) + vs))
    first = trecs[0][0]
    print()
    print("Per round / that round's %s run, median [95%% CI]:" % first)
    for w in works:
        for name, _, _ in trecs[1:]:
            vs = median_ci([c / f for c, f in zip(cpu[(w, name)], cpu[(w, first)])])
            print("- %s, %s: %.3f [%.3f-%.3f]" % ((w, name) + vs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
