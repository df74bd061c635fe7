"""trecord's own costs against perf, for make bench (called by bench.py):

  startup   CPU time (user + sys of the recorder and the command) and peak
            RSS of `trecord -- /bin/true` against `perf record -g -- /bin/true`,
            median of interleaved runs
  unwind    BPF time per sample at two stack depths of the FP-less `deep`
            workload at 4000 Hz (budget raised to 50% so no sample is cut):
            ns per native frame (the slope) and fixed ns per sample (the
            intercept); from SAMPLER_NS (bpf_ktime from the sampler's entry
            to the trace's send, per sent trace) and, for the whole
            programs, kernel.bpf_stats_enabled's run time per run
  slowdown  the deep workload's own CPU time for fixed work at 4000 Hz,
            250 frames deep: alone, under trecord (default budget and
            --max-cpu 50) and under perf record -g, median of interleaved runs
"""

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bpf_owned  # noqa: E402

STARTUP_RUNS = 11
DEPTHS = (16, 250)
FREQ = 4000


def wait_rusage(cmd):
    """(CPU seconds, max RSS KiB, stderr) of cmd and what it waited for."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), err[-2000:]))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, err


def startup(b):
    out = b.out
    cmds = {
        "trec": [b.a.trecord, "-q", "-f", "-o", os.path.join(out, "true.tr"), "--", "/bin/true"],
        "perf-g": ["perf", "record", "-q", "-g", "--no-buildid-cache", "-o",
                   os.path.join(out, "true.data"), "--", "/bin/true"],
    }
    got = {t: ([], []) for t in cmds}
    for r in range(STARTUP_RUNS):
        for t in (sorted(cmds) if r % 2 else sorted(cmds, reverse=True)):
            cpu, rss, _ = wait_rusage(cmds[t])
            got[t][0].append(cpu)
            got[t][1].append(rss)
    return {t: {"cpu_s": statistics.median(c), "rss_kib": statistics.median(m)}
            for t, (c, m) in got.items()}


def info_metrics(treport, path):
    p = subprocess.run([treport, "--info", path], capture_output=True, text=True, check=True)
    m = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit() and f[0].isupper():
            m.setdefault(f[0], int(f[1]))
    return m


def deep_cmd(b, units, depth):
    return [os.path.join(b.a.workloads, "deep"), "-n", str(units), str(depth)]


def calibrate_deep(b, secs):
    units = 100
    cmd = deep_cmd(b, units, DEPTHS[-1])
    _, _, err = wait_rusage(cmd)
    cpu_ns = int(err.split("cpu_ns=")[1].split()[0])
    return max(1, int(units * secs * 1e9 / max(cpu_ns, 1)))


def unwind_one(b, units, depth):
    path = os.path.join(b.out, "deep%d.tr" % depth)
    cmd = [b.a.trecord, "-q", "-f", "--max-cpu", "50", "-F", str(FREQ), "-o", path, "--"] + \
        deep_cmd(b, units, depth)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = None
    while proc.poll() is None:
        try:
            snap = bpf_owned.progs(proc.pid)
            last = snap or last
        except (subprocess.SubprocessError, OSError):
            pass
        time.sleep(0.1)
    proc.stderr.read()
    m = info_metrics(b.a.treport, path)
    os.unlink(path)
    sent = m.get("TRACES_SENT", 0)
    perf_progs = [p for p in (last or []) if p.get("type") == "perf_event"]
    runs = max((p.get("run_cnt", 0) for p in perf_progs), default=0)
    run_ns = sum(p.get("run_time_ns", 0) for p in perf_progs)
    return {"depth": depth, "traces": sent,
            "frames": m.get("NATIVE_FRAMES", 0) / sent if sent else None,
            "ns_per_trace": m.get("SAMPLER_NS", 0) / sent if sent else None,
            "throttled": m.get("THROTTLED", 0),
            "stats_ns_per_run": run_ns / runs if runs else None, "stats_runs": runs}


def unwind(b, units):
    path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(path).read().strip()
    try:
        with open(path, "w") as f:
            f.write("1")
        rows = [unwind_one(b, units, d) for d in DEPTHS]
    finally:
        with open(path, "w") as f:
            f.write(old)
    lo, hi = rows[0], rows[-1]
    slope = fixed = None
    if lo["frames"] is not None and hi["frames"] is not None and hi["frames"] > lo["frames"]:
        slope = (hi["ns_per_trace"] - lo["ns_per_trace"]) / (hi["frames"] - lo["frames"])
        fixed = lo["ns_per_trace"] - slope * lo["frames"]
    return {"rows": rows, "ns_per_frame": slope, "fixed_ns": fixed}


def slowdown(b, units):
    depth = DEPTHS[-1]
    work = deep_cmd(b, units, depth)
    path = os.path.join(b.out, "slow")
    configs = {
        "alone": work,
        "trec": [b.a.trecord, "-q", "-f", "-F", str(FREQ), "-o", path + ".tr", "--"] + work,
        "trec --max-cpu 50": [b.a.trecord, "-q", "-f", "--max-cpu", "50", "-F", str(FREQ),
                              "-o", path + "50.tr", "--"] + work,
        "perf-g": ["perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(FREQ),
                   "--no-buildid-cache", "-o", path + ".data", "--"] + work,
    }
    names = list(configs)
    cpu = {n: [] for n in names}
    for r in range(b.a.runs):
        for n in names[r % len(names):] + names[:r % len(names)]:
            _, _, err = wait_rusage(configs[n])
            cpu[n].append(int(err.rsplit("cpu_ns=", 1)[1].split()[0]) / 1e9)
    base = statistics.median(cpu["alone"])
    res = {n: statistics.median(v) / base for n, v in cpu.items() if n != "alone"}
    res["throttled"] = info_metrics(b.a.treport, path + ".tr").get("THROTTLED", 0)
    return res


def run_all(b):
    """Fills b.res["costs"]; perf columns need perf, trec ones trecord."""
    if not b.have_trec:
        return
    units = calibrate_deep(b, b.a.secs)
    b.res["costs"] = {"startup": startup(b), "unwind": unwind(b, 2 * units),
                      "slowdown": slowdown(b, units), "units": units}


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def table_rows(res):
    c = res.get("costs")
    if not c:
        return []
    s, u, d = c["startup"], c["unwind"], c["slowdown"]
    L = ["", "**Start-up**: `trecord -- /bin/true` against `perf record -g -- /bin/true`, "
         "median of %d interleaved runs: CPU time (user + sys, the recorder and the "
         "command) and peak RSS." % STARTUP_RUNS, "",
         "| | CPU ms | peak RSS MiB |", "|---|---:|---:|"]
    for t in ("trec", "perf-g"):
        L.append("| %s | %.0f | %.0f |" % (t, 1000 * s[t]["cpu_s"], s[t]["rss_kib"] / 1024))
    L.append("| trec / perf-g | %.2fx | %.2fx |" % (
        s["trec"]["cpu_s"] / s["perf-g"]["cpu_s"], s["trec"]["rss_kib"] / s["perf-g"]["rss_kib"]))
    L += ["", "**BPF unwind cost** at %d Hz on the FP-less `deep` workload (`--max-cpu 50`): "
          "BPF time per sent trace from SAMPLER_NS (the sampler's entry to the trace's send), "
          "and kernel.bpf_stats_enabled's run time per run of the perf_event programs (every "
          "tick of every CPU, other processes' filtered ticks included). Slope: **%s ns per "
          "native frame**; intercept: **%s ns fixed per sample**." % (
              FREQ, fmt(u["ns_per_frame"], ".0f"), fmt(u["fixed_ns"], ",.0f")), "",
          "| depth | frames/trace | ns/trace | bpf_stats ns/run | traces | throttled |",
          "|---:|---:|---:|---:|---:|---:|"]
    for r in u["rows"]:
        L.append("| %d | %s | %s | %s | %d | %d |" % (
            r["depth"], fmt(r["frames"], ".1f"), fmt(r["ns_per_trace"], ",.0f"),
            fmt(r["stats_ns_per_run"], ",.0f"), r["traces"], r["throttled"]))
    L += ["", "**Slowdown** at %d Hz, %d frames deep, no frame pointers: the workload's "
          "own CPU time for fixed work under the recorder / alone (median of interleaved "
          "runs). trec's default budget (10%%) throttled %d samples of its run." % (
              FREQ, DEPTHS[-1], d["throttled"]), "",
          "| trec | trec --max-cpu 50 | perf -g |", "|---:|---:|---:|",
          "| %.3fx | %.3fx | %.3fx |" % (d["trec"], d["trec --max-cpu 50"], d["perf-g"])]
    return L


def main():
    """Standalone: only these tables (make bench runs them with the rest)."""
    import bench_standalone
    return bench_standalone.main(__doc__, run_all, table_rows, workloads=True)


if __name__ == "__main__":
    sys.exit(main())
