"""trecord's own costs against perf, for make bench (called by bench.py):

  startup   CPU time (user + sys of the recorder and the command) and peak
            RSS of `trecord -- /bin/true` against `perf record -g -- /bin/true`,
            median and fastest of 21 interleaved runs, and trec's median against
            perf's runs whose samples had no kernel frames (perf loads the
            kernel's symbols for the others); --startup-only runs only this
  unwind    BPF time per sample at two stack depths of the FP-less `deep`
            recursion at 4000 Hz (budget raised to 50% so no sample is cut):
            ns per native frame (the slope) and fixed ns per sample (the
            intercept); and per frame of `chain`, 250 distinct functions
            with frames of 8-400 bytes, and of `busy`, whose qsort stacks
            (libc's msort recursion) change between samples so that few
            are replayed (each: its ns/trace less that intercept);
            from SAMPLER_NS (bpf_ktime from the sampler's entry to the
            trace's send, per sent trace) and, for the whole programs,
            kernel.bpf_stats_enabled's run time per run
  bystander the CPU time of a program that is not recorded (`chain`'s fixed
            work) while trecord -p and perf record -g -p record a sleeping
            process at BYSTANDER_FREQ, against it alone: per-thread events
            leave it alone, per-CPU ones interrupt it (interleaved rounds)
  slowdown  each workload's own CPU time for fixed work at 4000 Hz, about
            250 frames deep: alone, under trecord, under trecord whose
            budget cuts nearly every walk (--max-cpu 0.01: the timer and
            trec's fixed cost, the floor any sampler pays) and under perf
            record -g, SLOWDOWN_RUNS interleaved rounds; median ratio to the
            median alone, the interquartile range of the runs' ratios, and
            trec over perf -g paired within each round. With 2 CPUs or more
            the workload runs on CPU 0 and the recorder on CPU 1 (the
            scheduler's moves were most of the rounds' spread)
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bpf_owned  # noqa: E402

STARTUP_RUNS = 21
# Kernel addresses in perf script's ips (x86-64 and arm64 alike).
KERNEL_ADDR_MIN = 0xffff800000000000
DEPTHS = (16, 250)
FREQ = 4000
SLOWDOWN_RUNS = 15
BYSTANDER_FREQ = 20000
BYSTANDER_RUNS = 5
# Seconds a recorder gets to attach before the bystander starts.
BYSTANDER_ATTACH_S = 2.0
# The slowdown's workloads: (name, binary, arguments after -n UNITS).
STACKS = (("deep", "deep", [str(DEPTHS[-1])]), ("chain", "chain", []))
# Calibrated too, for the unwind table only.
MIXED = (("busy", "busy", []),)


def wait_rusage(cmd):
    """(CPU seconds, max RSS KiB, stderr) of cmd and what it waited for."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), err[-2000:]))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, err


def has_kernel_frames(data):
    """Whether a perf.data's samples have kernel frames: perf then loads the
    kernel's symbols at its end, about 60 ms more than a run without."""
    p = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                       text=True)
    return any(int(w, 16) >= KERNEL_ADDR_MIN for w in p.stdout.split()
               if all(c in "0123456789abcdef" for c in w))


def startup(b):
    out = b.out
    data = os.path.join(out, "true.data")
    cmds = {
        "trec": [b.a.trecord, "-q", "-f", "-o", os.path.join(out, "true.tr"), "--", "/bin/true"],
        "perf-g": ["perf", "record", "-q", "-g", "--no-buildid-cache", "-o", data,
                   "--", "/bin/true"],
    }
    got = {t: ([], []) for t in cmds}
    kernel_free = []  # CPU seconds of perf's runs without kernel frames
    load = [os.getloadavg()[0]]
    for r in range(STARTUP_RUNS):
        for t in (sorted(cmds) if r % 2 else sorted(cmds, reverse=True)):
            cpu, rss, _ = wait_rusage(cmds[t])
            got[t][0].append(cpu)
            got[t][1].append(rss)
            if t == "perf-g" and not has_kernel_frames(data):
                kernel_free.append(cpu)
    load.append(os.getloadavg()[0])
    res = {t: {"cpu_s": statistics.median(c), "cpu_min_s": min(c),
               "rss_kib": statistics.median(m)} for t, (c, m) in got.items()}
    res["perf-g"]["kernel_free_s"] = sorted(kernel_free)
    res["load"] = load
    return res


def info_metrics(treport, path):
    p = subprocess.run([treport, "--info", path], capture_output=True, text=True, check=True)
    m = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit() and f[0].isupper():
            m.setdefault(f[0], int(f[1]))
    return m


def work_cmd(b, binary, units, args):
    return [os.path.join(b.a.workloads, binary), "-n", str(units)] + args


def deep_cmd(b, units, depth):
    return work_cmd(b, "deep", units, [str(depth)])


def calibrate(b, binary, args, secs):
    """Units of work that take about secs of CPU alone."""
    units = 100
    _, _, err = wait_rusage(work_cmd(b, binary, units, args))
    cpu_ns = int(err.split("cpu_ns=")[1].split()[0])
    return max(1, int(units * secs * 1e9 / max(cpu_ns, 1)))


def unwind_one(b, name, work):
    path = os.path.join(b.out, "%s.tr" % name)
    cmd = [b.a.trecord, "-q", "-f", "--max-cpu", "50", "-F", str(FREQ), "-o", path, "--"] + work
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
    return {"name": name, "traces": sent, "replayed": m.get("STACK_REPLAYED", 0),
            "frames": m.get("NATIVE_FRAMES", 0) / sent if sent else None,
            "ns_per_trace": m.get("SAMPLER_NS", 0) / sent if sent else None,
            "throttled": m.get("THROTTLED", 0),
            "stats_ns_per_run": run_ns / runs if runs else None, "stats_runs": runs}


def unwind(b, units):
    """units: {workload name: units of about --secs}."""
    path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(path).read().strip()
    try:
        with open(path, "w") as f:
            f.write("1")
        rows = [unwind_one(b, "deep%d" % d, deep_cmd(b, 2 * units["deep"], d)) for d in DEPTHS]
        rows.append(unwind_one(b, "chain", work_cmd(b, "chain", 2 * units["chain"], [])))
        rows.append(unwind_one(b, "busy", work_cmd(b, "busy", 2 * units["busy"], [])))
    finally:
        with open(path, "w") as f:
            f.write(old)
    lo, hi, chain, busy = rows
    slope = fixed = chain_slope = busy_slope = None
    if lo["frames"] is not None and hi["frames"] is not None and hi["frames"] > lo["frames"]:
        slope = (hi["ns_per_trace"] - lo["ns_per_trace"]) / (hi["frames"] - lo["frames"])
        fixed = lo["ns_per_trace"] - slope * lo["frames"]
        if chain["frames"]:
            chain_slope = (chain["ns_per_trace"] - fixed) / chain["frames"]
        if busy["frames"]:
            busy_slope = (busy["ns_per_trace"] - fixed) / busy["frames"]
    return {"rows": rows, "ns_per_frame": slope, "fixed_ns": fixed,
            "chain_ns_per_frame": chain_slope, "busy_ns_per_frame": busy_slope}


def quartiles(v):
    v = sorted(v)
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return q[0], q[2]


def rotated(keys, r):
    """The keys in round r's order: each round starts one further on."""
    k = r % len(keys)
    return keys[k:] + keys[:k]


def work_cpu_s(err):
    """A workload's own CPU seconds, from the cpu_ns= it prints last."""
    return int(err.rsplit("cpu_ns=", 1)[1].split()[0]) / 1e9


def ratio_stats(values, base):
    """The median of values / base, and the interquartile range of those ratios."""
    ratios = [c / base for c in values]
    return statistics.median(ratios), quartiles(ratios)


# The slowdown's recorders, in its table's order.
SLOWDOWN_RECORDERS = ("alone", "trec-leaf", "trec", "perf-g")
# --max-cpu for trec-leaf: 1 us of walking per 10 ms window, about one
# walk in 80 samples; the rest keep their leaf (THROTTLED).
LEAF_MAX_CPU = "0.01"


def pinned_cmds():
    """(prefix for the workload, prefix for the recorder): CPU 0 and CPU 1
    when there are two, else none."""
    if len(os.sched_getaffinity(0)) < 2 or not shutil.which("taskset"):
        return [], []
    cpus = sorted(os.sched_getaffinity(0))
    return ["taskset", "-c", str(cpus[0])], ["taskset", "-c", str(cpus[1])]


def slowdown(b, units):
    """Every round runs every (workload, recorder) pair, in a rotating order."""
    configs = {}
    on_work, on_rec = pinned_cmds()
    for name, binary, args in STACKS:
        work = on_work + work_cmd(b, binary, units[name], args)
        path = os.path.join(b.out, "slow-" + name)
        trec = [b.a.trecord, "-q", "-f", "-F", str(FREQ), "-o", path + ".tr"]
        configs[(name, "alone")] = work
        configs[(name, "trec-leaf")] = on_rec + trec[:-2] + [
            "--max-cpu", LEAF_MAX_CPU, "-o", path + "-leaf.tr", "--"] + work
        configs[(name, "trec")] = on_rec + trec + ["--"] + work
        configs[(name, "perf-g")] = on_rec + [
            "perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(FREQ),
            "--no-buildid-cache", "-o", path + ".data", "--"] + work
    keys = list(configs)
    cpu = {k: [] for k in keys}
    load = [os.getloadavg()[0]]
    for r in range(SLOWDOWN_RUNS):
        for k in rotated(keys, r):
            _, _, err = wait_rusage(configs[k])
            cpu[k].append(work_cpu_s(err))
    load.append(os.getloadavg()[0])
    res = {"runs": SLOWDOWN_RUNS, "load": load, "pinned": bool(on_work)}
    for name, _, _ in STACKS:
        base = statistics.median(cpu[(name, "alone")])
        row = {"alone_s": base}
        for rec in SLOWDOWN_RECORDERS:
            row[rec], row[rec + "_iqr"] = ratio_stats(cpu[(name, rec)], base)
        paired = [t / p for t, p in zip(cpu[(name, "trec")], cpu[(name, "perf-g")])]
        row["paired"], row["paired_iqr"] = statistics.median(paired), quartiles(paired)
        leaf = info_metrics(b.a.treport, os.path.join(b.out, "slow-%s-leaf.tr" % name))
        row["leaf_throttled"] = "%d of %d" % (leaf.get("THROTTLED", 0), leaf.get("SAMPLES", 0))
        row["throttled"] = info_metrics(b.a.treport, os.path.join(
            b.out, "slow-%s.tr" % name)).get("THROTTLED", 0)
        res[name] = row
    return res


def bystander(b, units):
    """Every round runs the bystander alone and beside each recorder, in a
    rotating order; each recorder records a sleeping process."""
    sleeper = subprocess.Popen(["sleep", "100000"])
    work = work_cmd(b, "chain", units["chain"], [])
    path = os.path.join(b.out, "bystander")
    recorders = {
        "alone": None,
        "trec": [b.a.trecord, "-q", "-f", "-F", str(BYSTANDER_FREQ), "-p", str(sleeper.pid),
                 "-o", path + ".tr"],
        "perf-g": ["perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(BYSTANDER_FREQ),
                   "-p", str(sleeper.pid), "--no-buildid-cache", "-o", path + ".data"],
    }
    keys = list(recorders)
    cpu = {k: [] for k in keys}
    try:
        for r in range(BYSTANDER_RUNS):
            for k in rotated(keys, r):
                rec = None
                if recorders[k]:
                    rec = subprocess.Popen(recorders[k], stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL)
                    time.sleep(BYSTANDER_ATTACH_S)
                _, _, err = wait_rusage(work)
                cpu[k].append(work_cpu_s(err))
                if rec:
                    rec.send_signal(2)
                    rec.wait()
    finally:
        sleeper.kill()
        sleeper.wait()
    base = statistics.median(cpu["alone"])
    res = {"runs": BYSTANDER_RUNS, "alone_s": base}
    for k in keys:
        res[k], res[k + "_iqr"] = ratio_stats(cpu[k], base)
    return res


def run_all(b):
    """Fills b.res["costs"]; perf columns need perf, trec ones trecord."""
    if not b.have_trec:
        return
    if getattr(b.a, "startup_only", False):
        b.res["costs"] = {"startup": startup(b)}
        return
    units = {name: calibrate(b, binary, args, b.a.secs) for name, binary, args in STACKS + MIXED}
    b.res["costs"] = {"startup": startup(b), "unwind": unwind(b, units),
                      "slowdown": slowdown(b, units), "bystander": bystander(b, units),
                      "units": units}


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def startup_rows(s):
    tr, pg = s["trec"], s["perf-g"]
    free = pg["kernel_free_s"]
    L = ["", "**Start-up**: `trecord -- /bin/true` against `perf record -g -- /bin/true`, "
         "%d interleaved runs (load average %.1f, then %.1f): CPU time (user + sys, the "
         "recorder and the command), median and fastest, and median peak RSS." % (
             STARTUP_RUNS, s["load"][0], s["load"][1]), "",
         "| | CPU ms median | CPU ms fastest | peak RSS MiB |", "|---|---:|---:|---:|"]
    for t in ("trec", "perf-g"):
        L.append("| %s | %.0f | %.0f | %.0f |" % (t, 1000 * s[t]["cpu_s"],
                                                 1000 * s[t]["cpu_min_s"], s[t]["rss_kib"] / 1024))
    L.append("| trec / perf-g | %.2fx | %.2fx | %.2fx |" % (
        tr["cpu_s"] / pg["cpu_s"], tr["cpu_min_s"] / pg["cpu_min_s"],
        tr["rss_kib"] / pg["rss_kib"]))
    if free:
        L += ["", "perf -g's kernel-free runs (no sample with kernel frames, so no kernel "
              "symbols loaded): %d of %d, %.0f-%.0f ms; trec's median against them: "
              "%.2f-%.2fx." % (len(free), STARTUP_RUNS, 1000 * free[0], 1000 * free[-1],
                               tr["cpu_s"] / free[-1], tr["cpu_s"] / free[0])]
    else:
        L += ["", "perf -g had no kernel-free run (every run had a sample with kernel frames)."]
    return L


def table_rows(res):
    c = res.get("costs")
    if not c:
        return []
    s = c["startup"]
    L = startup_rows(s)
    if "unwind" not in c:
        return L
    u, d = c["unwind"], c["slowdown"]
    L += ["", "**BPF unwind cost** at %d Hz (`--max-cpu 50`): BPF time per sent trace from "
          "SAMPLER_NS (the sampler's entry to the trace's send), and "
          "kernel.bpf_stats_enabled's run time per run of the perf_event programs (every "
          "tick of the recorded threads). On the `deep` "
          "recursion (one return address, 48-byte frames), slope: **%s ns per native "
          "frame**; intercept: **%s ns fixed per sample**. On `chain` (250 distinct "
          "functions, frames of 8-400 bytes): **%s ns per native frame** (its ns/trace less "
          "the intercept). These two replay most samples' outer frames (stack_replay.h). "
          "On `busy` (libc's qsort, whose msort recursion changes from one sample to the "
          "next, then a 150-deep recursion), most samples are walked whole: **%s ns per "
          "native frame**." % (
              FREQ, fmt(u["ns_per_frame"], ".0f"), fmt(u["fixed_ns"], ",.0f"),
              fmt(u.get("chain_ns_per_frame"), ".0f"),
              fmt(u.get("busy_ns_per_frame"), ".0f")), "",
          "| workload | frames/trace | replayed | ns/trace | bpf_stats ns/run | traces | "
          "throttled |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in u["rows"]:
        replayed = r.get("replayed")
        L.append("| %s | %s | %s | %s | %s | %d | %d |" % (
            r["name"], fmt(r["frames"], ".1f"),
            "%.0f%%" % (100.0 * replayed / r["traces"]) if replayed is not None and r["traces"]
            else "n/a", fmt(r["ns_per_trace"], ",.0f"),
            fmt(r["stats_ns_per_run"], ",.0f"), r["traces"], r["throttled"]))
    L += ["", "**Slowdown** at %d Hz, no frame pointers, about 250 frames deep: each "
          "workload's own CPU time for fixed work (about %.1f s alone) under the recorder / "
          "its median alone; %d interleaved rounds (load average %.1f, then %.1f)%s, median "
          "and in brackets the interquartile range of the rounds' ratios. *trec, walk cut* "
          "is trecord with `--max-cpu %s`, which throttles nearly every sample to its leaf "
          "(%s of them): the timer interrupt and trec's fixed cost, the floor a sampler "
          "pays; the default budget (10%%) throttled %s. The last column is trec's CPU time "
          "over perf -g's in the same round." % (
              FREQ, d["deep"]["alone_s"], d["runs"], d["load"][0], d["load"][1],
              ", the workload on one CPU and the recorder on another" if d.get("pinned")
              else "", LEAF_MAX_CPU,
              " and ".join(str(d[n].get("leaf_throttled", 0)) for n, _, _ in STACKS),
              " and ".join(str(d[n]["throttled"]) for n, _, _ in STACKS)), "",
          "| workload | alone | trec, walk cut | trec | perf -g | trec / perf -g |",
          "|---|---:|---:|---:|---:|---:|"]
    for n, _, _ in STACKS:
        L.append("| %s | %s | %.3f (%.3f-%.3f) |" % (n, " | ".join(
            "%.3fx (%.3f-%.3f)" % ((d[n][rec],) + d[n][rec + "_iqr"])
            for rec in SLOWDOWN_RECORDERS), d[n]["paired"], *d[n]["paired_iqr"]))
    y = c.get("bystander")
    if y:
        L += ["", "**Bystander** at %d Hz: the CPU time of `chain`'s fixed work (%.1f s "
              "alone), not recorded, while each recorder records a sleeping process with "
              "`-p`; / its median alone, %d interleaved rounds, median and interquartile "
              "range. Per-thread events interrupt only the recorded threads." % (
                  BYSTANDER_FREQ, y["alone_s"], y["runs"]), "",
              "| alone | trec -p | perf -g -p |", "|---:|---:|---:|",
              "| %s |" % " | ".join("%.3fx (%.3f-%.3f)" % ((y[k],) + y[k + "_iqr"])
                                    for k in ("alone", "trec", "perf-g"))]
    return L


def main():
    """Standalone: only these tables (make bench runs them with the rest)."""
    import bench_standalone
    def add_args(ap):
        ap.add_argument("--runs", type=int, default=5)
        ap.add_argument("--secs", type=float, default=1.0)
        ap.add_argument("--startup-only", action="store_true",
                        help="only the /bin/true start-up comparison")

    return bench_standalone.main(__doc__, run_all, table_rows, workloads=True,
                                 add_args=add_args)


if __name__ == "__main__":
    sys.exit(main())
