"""trecord -a against perf record -g -a, for make bench (or alone):

  cpu    user + sys CPU of the recorder (its process and threads) for
         `-a -F 999` over SECS seconds while two `busy` processes keep both
         CPUs busy, trecord (also with --no-archive: without embedding
         symbols at the end, which perf does not do) and perf interleaved,
         median of RUNS; and peak RSS
  loss   `-a -F 20000` for SECS seconds on the same load: samples written,
         and samples lost (trecord: its metrics, the writer queue's drops
         among them; perf: its LOST records as `perf report` counts them)
  rates  user + sys CPU of trecord and perf -g at -F 99 (trecord's
         default), 999, 4000 (perf's) and 20000 over RATE_SECS seconds on
         the same load, interleaved, median of RATE_RUNS: where the
         per-sample cost overtakes the fixed one

  per sample  the recorder's user + sys CPU per sample written, without
         the tax of its own interrupts: one `busy` pinned to CPU 0 and
         recorded there alone (`-C 0`, 20 kHz) by a recorder pinned to
         CPU 1, for PS_SHORT and PS_LONG seconds; the difference of the two
         runs' CPU over the difference of their samples (start-up and the
         end's symbol embedding cancel out), median of PS_RUNS

Ratios are trecord / perf in the same run; nothing here is a threshold.
"""

import os
import re
import statistics
import subprocess
import sys


def _busy(workloads, secs):
    exe = os.path.join(workloads, "busy")
    return [subprocess.Popen([exe, str(secs + 3)], stdout=subprocess.DEVNULL)
            for _ in range(2)]


def _pin(cpu):
    return lambda: os.sched_setaffinity(0, {cpu})


def _run(cmd, workloads, secs, pinned=False):
    """(CPU seconds of cmd and its children, peak RSS MiB, stderr) with both
    CPUs busy; pinned: cmd on CPU 1 beside one busy loop on CPU 0 (which
    cmd records with -C 0)."""
    if pinned:
        load = [subprocess.Popen([os.path.join(workloads, "busy"), str(secs + 3)],
                                 stdout=subprocess.DEVNULL, preexec_fn=_pin(0))]
    else:
        load = _busy(workloads, secs)
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_pin(1) if pinned else None)
        err = p.stderr.read()
        p.stderr.close()
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        for w in load:
            w.kill()
            w.wait()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), err[-2000:]))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, err


def _trec_info(treport, path):
    out = subprocess.run([treport, "--info", path], capture_output=True, text=True).stdout
    got = {}
    for name in ("SAMPLES_WRITTEN", "QUEUE_DROPPED_TRACES", "TRACES_LOST_RINGBUF", "THROTTLED",
                 "SELF_SAMPLES"):
        m = re.search(r"^\s*%s\s+(\d+)" % name, out, re.M)
        got[name] = int(m.group(1)) if m else None
    return got, out


def _perf_counts(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stats"],
                         capture_output=True, text=True).stdout
    def num(label):
        m = re.search(r"^\s*%s events:\s*(\d+)" % label, out, re.M)
        return int(m.group(1)) if m else 0
    return {"samples": num("SAMPLE"), "lost": num("LOST_SAMPLES") + num("LOST")}


def cmds(trecord, out, freq, secs, cpu=None):
    """-a on every CPU, or on cpu alone (-C)."""
    on = ["-C", str(cpu)] if cpu is not None else []
    name = os.path.join(out, "sysw%d%s" % (freq, "" if cpu is None else "c%d" % cpu))
    return {
        "trec": [trecord, "-q", "-f", "-a"] + on + ["-F", str(freq), "-d", str(secs),
                                                    "-o", name + ".tr"],
        "trec-noarc": [trecord, "-q", "-f", "-a"] + on + ["-F", str(freq), "-d", str(secs),
                                                          "--no-archive", "-o", name + "n.tr"],
        "perf-g": ["perf", "record", "-q", "-g", "-a"] + on + [
            "-e", "cpu-clock", "-F", str(freq), "--no-buildid-cache", "-o", name + ".data",
            "--", "sleep", str(secs)],
    }


def _load():
    return float(open("/proc/loadavg").read().split()[0])


def cpu(a, out, secs, runs):
    """{tool: (median CPU s, median peak RSS MiB)}."""
    c = cmds(a.trecord, out, 999, secs)
    got = {t: [] for t in c}
    for r in range(runs):
        for t in (sorted(c) if r % 2 else sorted(c, reverse=True)):
            got[t].append(_run(c[t], a.workloads, secs)[:2])
    return {t: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
            for t, v in got.items()}


def loss(a, out, secs):
    c = cmds(a.trecord, out, 20000, secs)
    res = {}
    cpu_s, rss, _ = _run(c["trec"], a.workloads, secs)
    info, _ = _trec_info(a.treport, c["trec"][-1])
    res["trec"] = dict(info, cpu_s=cpu_s, rss=rss)
    cpu_s, rss, _ = _run(c["perf-g"], a.workloads, secs)
    res["perf-g"] = dict(_perf_counts(c["perf-g"][c["perf-g"].index("-o") + 1]), cpu_s=cpu_s,
                         rss=rss)
    return res


def rates(a, out, secs, runs):
    """{freq: {tool: median CPU s}} for trec and perf-g."""
    got = {}
    for freq in RATES:
        c = cmds(a.trecord, out, freq, secs)
        v = {"trec": [], "perf-g": []}
        for r in range(runs):
            for t in (("trec", "perf-g") if r % 2 == 0 else ("perf-g", "trec")):
                v[t].append(_run(c[t], a.workloads, secs)[0])
        got[freq] = {t: statistics.median(x) for t, x in v.items()}
    return got


def _samples(a, tool, path):
    if tool == "trec":
        return _trec_info(a.treport, path)[0]["SAMPLES_WRITTEN"] or 0
    return _perf_counts(path)["samples"]


def per_sample(a, out, runs):
    """{tool: median ns of CPU per sample written}, or None on one CPU."""
    if len(os.sched_getaffinity(0)) < 2:
        return None
    got = {"trec": [], "perf-g": []}
    for r in range(runs):
        for t in (("trec", "perf-g") if r % 2 == 0 else ("perf-g", "trec")):
            cpu_n = []
            for secs in (PS_SHORT, PS_LONG):
                cmd = cmds(a.trecord, out, PS_FREQ, secs, cpu=0)[t]
                cpu_s = _run(cmd, a.workloads, secs, pinned=True)[0]
                cpu_n.append((cpu_s, _samples(a, t, cmd[cmd.index("-o") + 1])))
            (c0, n0), (c1, n1) = cpu_n
            if n1 > n0:
                got[t].append((c1 - c0) * 1e9 / (n1 - n0))
    return {t: statistics.median(v) for t, v in got.items() if v}


CPU_SECS, CPU_RUNS, LOSS_SECS = 10, 3, 25
PS_FREQ, PS_SHORT, PS_LONG, PS_RUNS = 20000, 3, 12, 3
RATES, RATE_SECS, RATE_RUNS = (99, 999, 4000, 20000), 10, 2


def run_all(b):
    """Fills b.res["syswide"] (make bench); needs trecord and perf."""
    if b.have_trec:
        load = _load()
        b.res["syswide"] = {"cpu": cpu(b.a, b.out, CPU_SECS, CPU_RUNS),
                            "loss": loss(b.a, b.out, LOSS_SECS),
                            "rates": rates(b.a, b.out, RATE_SECS, RATE_RUNS),
                            "per_sample": per_sample(b.a, b.out, PS_RUNS)}
        b.res["syswide"]["load"] = (load, _load())


def table_rows(res):
    s = res.get("syswide")
    if not s:
        return []
    c, lo = s["cpu"], s["loss"]
    t, p = lo["trec"], lo["perf-g"]
    load = s.get("load", (0, 0))
    lost = (t["QUEUE_DROPPED_TRACES"] or 0) + (t["TRACES_LOST_RINGBUF"] or 0)
    return ["", "**System-wide** (`tests/bench/bench_syswide.py`), two `busy` processes "
            "keeping both CPUs busy (load average %.1f at the start, %.1f at the end): the "
            "recorder's own CPU (user + sys, start-up and symbol embedding included) and "
            "peak RSS for `-a -F 999` over %d s, median of %d interleaved runs; and "
            "`-a -F 20000` for %d s: samples written and lost (trec: ring-buffer drops, and "
            "an older trecord's writer-queue drops; perf: LOST records)." % (
                load[0], load[1], CPU_SECS, CPU_RUNS, LOSS_SECS), "",
            "| | -F 999 CPU s | RSS MiB | -F 20000 CPU s | RSS MiB | samples | lost | throttled |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            "| trec | %.2f | %.0f | %.2f | %.0f | %s | %d | %s |" % (
                c["trec"][0], c["trec"][1], t["cpu_s"], t["rss"], t["SAMPLES_WRITTEN"], lost,
                t["THROTTLED"]),
            "| trec --no-archive | %.2f | %.0f | | | | | |" % c["trec-noarc"],
            "| perf-g | %.2f | %.0f | %.2f | %.0f | %d | %d | - |" % (
                c["perf-g"][0], c["perf-g"][1], p["cpu_s"], p["rss"], p["samples"], p["lost"]),
            "| trec / perf-g | %.2fx | %.2fx | %.2fx | %.2fx | | | |" % (
                c["trec"][0] / c["perf-g"][0], c["trec"][1] / c["perf-g"][1],
                t["cpu_s"] / p["cpu_s"], t["rss"] / p["rss"]),
            "", "Of trec's %s samples at 20 kHz, %s were of its own threads (kept as "
            "`[error: SELF]`, not walked)." % (t["SAMPLES_WRITTEN"], t["SELF_SAMPLES"])
            ] + rate_rows(s.get("rates")) + per_sample_rows(s.get("per_sample"))


def rate_rows(rt):
    if not rt:
        return []
    rows = ["", "By sampling rate, `-a` for %d s on the same load (median of %d "
            "interleaved runs; user + sys of the recorder):" % (RATE_SECS, RATE_RUNS), "",
            "| -F | trec CPU s | perf -g CPU s | trec / perf -g |", "|---:|---:|---:|---:|"]
    for freq in sorted(rt, key=int):
        v = rt[freq]
        rows.append("| %s | %.2f | %.2f | %.2fx |" % (freq, v["trec"], v["perf-g"],
                                                    v["trec"] / v["perf-g"]))
    return rows


def per_sample_rows(ps):
    if not ps or "trec" not in ps or "perf-g" not in ps:
        return []
    return ["", "Per sample, without the recorder's own interrupts (one `busy` on CPU 0 "
            "recorded with `-C 0` at %d Hz by a recorder pinned to CPU 1; CPU of a %d s run "
            "less a %d s one, over their samples' difference; median of %d):" % (
                PS_FREQ, PS_LONG, PS_SHORT, PS_RUNS), "",
            "| | ns of CPU per sample |", "|---|---:|",
            "| trec | %.0f |" % ps["trec"], "| perf -g | %.0f |" % ps["perf-g"],
            "| trec / perf -g | %.2fx |" % (ps["trec"] / ps["perf-g"])]


def main():
    """Standalone: only this table (make bench runs it with the rest)."""
    import bench_standalone

    def add_args(ap):
        ap.add_argument("--runs", type=int, default=CPU_RUNS)
        ap.add_argument("--secs", type=int, default=CPU_SECS)
        ap.add_argument("--loss-secs", type=int, default=LOSS_SECS)
        ap.add_argument("--rate-secs", type=int, default=RATE_SECS)

    def use_args(a):
        global CPU_SECS, CPU_RUNS, LOSS_SECS, RATE_SECS
        CPU_SECS, CPU_RUNS, LOSS_SECS, RATE_SECS = a.secs, a.runs, a.loss_secs, a.rate_secs
    return bench_standalone.main(__doc__, run_all, table_rows, workloads=True,
                                 add_args=add_args, use_args=use_args)


if __name__ == "__main__":
    sys.exit(main())
