#!/usr/bin/env python3
"""trec against perf, measured side by side in one run (make bench).

Every number is a ratio or a per-sample figure from this run, never an
absolute threshold:
  overhead   workload elapsed time under each recorder / the workload alone
             (the workload times itself: a fixed amount of work, so the
             recorder's startup and teardown are not part of it; end-to-end
             wall time is shown separately)
  size       file bytes per sample, and the marginal bytes per extra sample
             (slope between the lowest and highest frequency, so fixed
             costs such as trec's kernel symbol snapshot cancel out)
  report     treport --folded / perf script time per sample, and peak RSS
  quality    share of samples with the leaf in the workload binary whose
             stack reaches main (or the thread's start function)
  bpf        BPF run time per sample of trecord's perf_event programs
             (kernel.bpf_stats_enabled while it records)
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "runtimes"))
import bench_coldstart  # noqa: E402
import bench_costs  # noqa: E402
import bench_gaps  # noqa: E402
import bench_interp  # noqa: E402
import bench_runtimes  # noqa: E402
import bench_syswide  # noqa: E402
import bpf_owned  # noqa: E402
import stacks  # noqa: E402

# name -> (arguments before and after the work units, stack roots).
WORKLOADS = {
    "busy": (["-n"], [], {"main"}),
    "bench_threads": ([], ["2"], {"main", "worker_main"}),
    "bench_cxx": ([], [], {"main"}),
}
TOOLS = ["trec", "perf-g", "perf-dwarf"]
ELAPSED_RE = re.compile(r"elapsed_ns=(\d+) cpu_ns=(\d+)")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class BenchError(Exception):
    pass


def run(cmd, **kw):
    """Runs cmd; returns (wall seconds, CompletedProcess). Fails loudly."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=kw.pop("stdout", subprocess.DEVNULL),
                       stderr=subprocess.PIPE, text=True, **kw)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise BenchError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode,
                                                p.stderr[-2000:]))
    return wall, p


def workload_times(stderr, cmd):
    """(elapsed, cpu) seconds the workload reports for its fixed work."""
    m = ELAPSED_RE.findall(stderr)
    if not m:
        raise BenchError("no elapsed_ns/cpu_ns from %s:\n%s" % (" ".join(cmd), stderr[-2000:]))
    return int(m[-1][0]) / 1e9, int(m[-1][1]) / 1e9


def run_rusage(cmd):
    """Runs cmd; returns (wall seconds, CPU seconds of cmd and every
    descendant it waited for, stderr). Fails loudly."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise BenchError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, err[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime, err


class Bench:
    def __init__(self, a):
        self.a = a
        self.out = a.out_dir
        self.freqs = [int(f) for f in a.freqs.split(",")]
        self.mid_freq = self.freqs[len(self.freqs) // 2]
        self.have_trec = os.access(a.trecord, os.X_OK) and os.access(a.treport, os.X_OK)
        self.tools = [t for t in TOOLS if t != "trec" or self.have_trec]
        self.units = {}
        self.res = {"overhead": {}, "wall": {}, "cpu": {}, "rec_cpu": {}, "size": {}, "report": {},
                    "quality": {}, "bpf": {}, "env": {}}

    def size_tools(self):
        return (["trec", "trec-noarchive"] if self.have_trec else []) + \
            [t for t in self.tools if t != "trec"]

    # ---- commands -------------------------------------------------------

    def workload_cmd(self, w):
        before, after, _ = WORKLOADS[w]
        return [os.path.join(self.a.workloads, w)] + before + [str(self.units[w])] + after

    def record_cmd(self, tool, freq, path, cmd):
        if tool in ("trec", "trec-noarchive"):
            extra = ["--no-archive"] if tool == "trec-noarchive" else []
            return [self.a.trecord, "-F", str(freq), "-q", "-f"] + extra + \
                ["-o", path, "--"] + cmd
        mode = ["-g"] if tool == "perf-g" else ["--call-graph", "dwarf"]
        return ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq)] + mode + \
            ["--no-buildid-cache", "-o", path, "--"] + cmd

    def rec_path(self, w, tool, freq):
        ext = "tr" if tool.startswith("trec") else "data"
        return os.path.join(self.out, "%s.%s.%d.%s" % (w, tool, freq, ext))

    # ---- phases ---------------------------------------------------------

    def calibrate(self):
        """Units of work that take about --secs seconds alone."""
        for w in WORKLOADS:
            units = 4
            while True:
                self.units[w] = units
                cmd = self.workload_cmd(w)
                secs = min(workload_times(run(cmd)[1].stderr, cmd)[0] for _ in range(2))
                if secs >= 0.15 or units > 1 << 24:
                    break
                units *= 4
            self.units[w] = max(1, math.ceil(units * self.a.secs / secs))
            log("calibrated %s: %d units ~ %.2fs" % (w, self.units[w], self.a.secs))

    def overhead(self):
        """Interleaved runs: every configuration once per round, in a
        rotating order, so drift in the machine hits all of them alike."""
        configs = [("alone", 0)] + [(t, f) for f in self.freqs for t in self.tools]
        elapsed = {(w, t, f): [] for w in WORKLOADS for t, f in configs}
        wall = {(w, t, f): [] for w in WORKLOADS for t, f in configs}
        cpu = {(w, t, f): [] for w in WORKLOADS for t, f in configs}
        rec_cpu = {(w, t, f): [] for w in WORKLOADS for t, f in configs}
        t_start = time.monotonic()
        for r in range(self.a.runs):
            for w in WORKLOADS:
                cmd = self.workload_cmd(w)
                k = (r * 3 + len(w)) % len(configs)
                for tool, freq in configs[k:] + configs[:k]:
                    if tool == "alone":
                        full = cmd
                    else:
                        # The first round's recordings are kept for the
                        # other phases, later rounds write a scratch file.
                        path = self.rec_path(w, tool, freq)
                        if r > 0:
                            path = os.path.join(self.out, "scratch." + os.path.basename(path))
                        full = self.record_cmd(tool, freq, path, cmd)
                    secs, total_cpu, err = run_rusage(full)
                    el, wcpu = workload_times(err, full)
                    key = (w, tool, freq)
                    elapsed[key].append(el)
                    wall[key].append(secs)
                    cpu[key].append(wcpu)
                    # The recorder's own CPU time: all of it minus the workload's.
                    rec_cpu[key].append(max(0.0, total_cpu - wcpu))
                    if tool != "alone" and r > 0:
                        os.unlink(path)
            log("overhead round %d/%d done (%.0fs)" % (r + 1, self.a.runs,
                                                        time.monotonic() - t_start))
        for (w, tool, freq), v in elapsed.items():
            if tool == "alone":
                continue
            base = statistics.median(elapsed[(w, "alone", 0)])
            base_wall = statistics.median(wall[(w, "alone", 0)])
            key = "%s/%s/%d" % (w, tool, freq)
            self.res["overhead"][key] = statistics.median(v) / base
            self.res["wall"][key] = statistics.median(wall[(w, tool, freq)]) / base_wall
            self.res["cpu"][key] = statistics.median(cpu[(w, tool, freq)]) / \
                statistics.median(cpu[(w, "alone", 0)])
            self.res["rec_cpu"][key] = statistics.median(rec_cpu[(w, tool, freq)])
        self.res["env"]["alone_secs"] = {
            w: statistics.median(elapsed[(w, "alone", 0)]) for w in WORKLOADS}
        # Noise floor: half the min-max spread of the runs alone, relative.
        self.res["env"]["noise"] = max(
            (max(v) - min(v)) / 2 / statistics.median(v)
            for (w, t, f), v in elapsed.items() if t == "alone")
        self.res["env"]["cpu_noise"] = max(
            (max(v) - min(v)) / 2 / statistics.median(v)
            for (w, t, f), v in cpu.items() if t == "alone")

    def samples(self, tool, path):
        if tool.startswith("trec"):
            _, p = run([self.a.treport, "--info", path], stdout=subprocess.PIPE)
            m = re.search(r"^\s*samples:\s+(\d+) read", p.stdout, re.M)
            if not m:
                raise BenchError("no sample count in treport --info %s:\n%s" %
                                 (path, p.stdout[:2000]))
            return int(m.group(1))
        _, p = run(["perf", "report", "--stats", "-i", path], stdout=subprocess.PIPE)
        m = re.search(r"SAMPLE events:\s+(\d+)", p.stdout)
        if not m:
            raise BenchError("no SAMPLE events in perf report --stats -i " + path)
        return int(m.group(1))

    def sizes(self):
        """From the first round's recordings; trec also once more with
        --no-archive (no embedded symbols: like perf.data, the recording
        then needs the same binaries at report time)."""
        lo, hi = self.freqs[0], self.freqs[-1]
        if self.have_trec:
            for w in WORKLOADS:
                for f in self.freqs:
                    run(self.record_cmd("trec-noarchive", f,
                                        self.rec_path(w, "trec-noarchive", f),
                                        self.workload_cmd(w)))
        for w in WORKLOADS:
            for tool in self.size_tools():
                n = {f: self.samples(tool, self.rec_path(w, tool, f)) for f in self.freqs}
                b = {f: os.path.getsize(self.rec_path(w, tool, f)) for f in self.freqs}
                mid = self.mid_freq
                marginal = (b[hi] - b[lo]) / (n[hi] - n[lo]) if n[hi] > n[lo] else None
                self.res["size"]["%s/%s" % (w, tool)] = {
                    "samples": n[mid], "samples_hi": n[hi], "bytes": b[mid],
                    "per_sample": b[mid] / n[mid] if n[mid] else None,
                    "marginal": marginal}

    def timed(self, cmd, out_path):
        """Median wall time and max RSS (KiB) of cmd over --report-runs runs;
        the output of the last run is kept in out_path."""
        walls, rss = [], []
        tfile = out_path + ".time"
        for _ in range(self.a.report_runs):
            with open(out_path, "w") as out:
                secs, _ = run(["/usr/bin/time", "-f", "%M", "-o", tfile] + cmd, stdout=out)
            walls.append(secs)
            with open(tfile) as f:
                rss.append(int(f.read().split()[-1]))
        os.unlink(tfile)
        return statistics.median(walls), max(rss)

    def report_jobs(self, w, f):
        """(label, tool, command, parse?) for each report of one recording."""
        jobs = []
        if self.have_trec:
            rec = self.rec_path(w, "trec", f)
            jobs.append(("treport --folded", "trec", [self.a.treport, "--folded", rec], False))
            jobs.append(("treport --perf-script", "trec",
                         [self.a.treport, "--perf-script", rec], True))
        for tool in ("perf-g", "perf-dwarf"):
            jobs.append(("perf script (%s)" % tool[5:], tool,
                         ["perf", "script", "-i", self.rec_path(w, tool, f)], True))
        return jobs

    def report_and_quality(self):
        """Report time per sample at the middle frequency, the marginal time
        per extra sample from the middle to the highest frequency (startup
        costs such as loading debug info cancel out), and unwind quality."""
        mid, hi = self.mid_freq, self.freqs[-1]
        for w in WORKLOADS:
            roots = WORKLOADS[w][2]
            binary = os.path.join(self.a.workloads, w)
            for (label, tool, cmd, parse), (_, _, cmd_hi, _) in zip(
                    self.report_jobs(w, mid), self.report_jobs(w, hi)):
                n = self.res["size"]["%s/%s" % (w, tool)]["samples"]
                n_hi = self.res["size"]["%s/%s" % (w, tool)]["samples_hi"]
                out_path = os.path.join(self.out, "%s.%s.txt" % (
                    w, re.sub(r"[^a-z-]", "", label.replace(" ", "-"))))
                secs_hi, _ = self.timed(cmd_hi, out_path)
                secs, rss = self.timed(cmd, out_path)
                self.res["report"]["%s/%s" % (w, label)] = {
                    "secs": secs, "us_per_sample": secs / n * 1e6 if n else None,
                    "marginal_us": (secs_hi - secs) / (n_hi - n) * 1e6 if n_hi > n else None,
                    "max_rss_kib": rss}
                if parse:
                    with open(out_path) as fh:
                        got, total = stacks.unwind_quality(fh, binary, roots)
                    self.res["quality"]["%s/%s" % (w, tool)] = [got, total]

    def bpf_cost(self):
        if not self.have_trec:
            return
        old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
        try:
            with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
                f.write("1")
            for w in WORKLOADS:
                self.res["bpf"][w] = self.bpf_cost_one(w)
            for name, cmd in bench_interp.commands(self.a.runtime_secs or 2.5):
                self.res["bpf"][name] = self.bpf_cost_one(name, cmd)
        finally:
            with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
                f.write(old)

    def bpf_cost_one(self, w, workload=None):
        path = os.path.join(self.out, "%s.bpfstats.tr" % w.replace(" ", "_").replace("/", "_"))
        cmd = self.record_cmd("trec", self.mid_freq, path, workload or self.workload_cmd(w))
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        last = None
        while proc.poll() is None:
            snap = self.trecord_progs(proc.pid)
            if snap:
                last = snap
            time.sleep(0.1)
        err = proc.stderr.read()
        if proc.returncode != 0:
            raise BenchError("trecord exited %d:\n%s" % (proc.returncode, err[-2000:]))
        if not last:
            raise BenchError("never saw trecord's BPF programs in bpftool prog show")
        perf_progs = [p for p in last if p.get("type") == "perf_event"]
        ns = sum(p.get("run_time_ns", 0) for p in perf_progs)
        cnt = max((p.get("run_cnt", 0) for p in perf_progs), default=0)
        other = sum(p.get("run_time_ns", 0) for p in last if p.get("type") != "perf_event")
        written = self.samples("trec", path)
        os.unlink(path)
        # Per run (every cpu-clock tick of the recorded threads: trecord
        # -- cmd watches them only) and per written sample.
        return {"ns_per_run": ns / cnt if cnt else None, "runs": cnt,
                "ns_per_written": ns / written if written else None,
                "written": written, "programs": len(perf_progs), "other_ns": other}

    @staticmethod
    def trecord_progs(pid):
        try:
            return bpf_owned.progs(pid)
        except (subprocess.SubprocessError, OSError):
            return None

    def environment(self):
        e = self.res["env"]
        e["kernel"] = os.uname().release
        e["cpus"] = os.cpu_count()
        e["perf"] = subprocess.run(["perf", "--version"], capture_output=True,
                                   text=True).stdout.strip()
        e["runs"] = self.a.runs
        e["units"] = dict(self.units)
        e["date"] = time.strftime("%Y-%m-%d")
        try:
            e["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                         capture_output=True, text=True,
                                         cwd=os.path.dirname(os.path.abspath(__file__))
                                         ).stdout.strip()
        except OSError:
            e["commit"] = "?"
        with open("/proc/sys/kernel/perf_event_max_sample_rate") as f:
            e["max_sample_rate"] = int(f.read())
        e["load_start"] = os.getloadavg()[0]


# ---- tables -------------------------------------------------------------

def fmt(v, spec, suffix=""):
    return "n/a" if v is None else format(v, spec) + suffix


def freq_table(L, tools, freqs, cell):
    """A workload x frequency table; cell("workload/tool/freq") -> text."""
    L.append("| workload | Hz | " + " | ".join(tools) + " |")
    L.append("|---|---:|" + "---:|" * len(tools))
    for w in WORKLOADS:
        for f in freqs:
            cells = [cell("%s/%s/%d" % (w, t, f)) for t in tools]
            L.append("| %s | %d | %s |" % (w, f, " | ".join(cells)))


def render(res, tools, freqs, mid):
    env = res["env"]
    L = []
    L.append("Measured %s on Linux %s, %d CPUs, %s, commit %s; median of %d runs "
             "per configuration, all configurations interleaved in one run; load "
             "average %.1f at the start, %.1f at the end." %
             (env["date"], env["kernel"], env["cpus"], env["perf"], env["commit"], env["runs"],
              env["load_start"], env["load_end"]))
    L.append("")
    L.append("**Recording overhead**: workload elapsed time under the recorder / "
             "the workload alone (fixed work, ~%s s alone). In brackets: end-to-end "
             "wall time of the whole command, recorder startup and teardown included. "
             "Noise floor: the runs alone varied by up to +-%.0f%%." %
             ("/".join("%.1f" % s for s in env["alone_secs"].values()), 100 * env["noise"]))
    L.append("")
    freq_table(L, tools, freqs, lambda k: "%s (%s)" % (
        fmt(res["overhead"].get(k), ".3f", "x"), fmt(res["wall"].get(k), ".2f", "x")))
    L.append("")
    L.append("**CPU cost**, less sensitive to other load on the machine: the workload's "
             "own CPU time under the recorder / alone (the sampling interrupt and BPF "
             "program run in its context), and in brackets the recorder's own CPU time "
             "in ms (its process and threads, startup included; for the workload alone "
             "this is the process start). Noise floor of the CPU times alone: +-%.0f%%." %
             (100 * env["cpu_noise"]))
    L.append("")
    freq_table(L, tools, freqs, lambda k: "%s (%s ms)" % (
        fmt(res["cpu"].get(k), ".3f", "x"),
        fmt(1000 * res["rec_cpu"][k] if k in res["rec_cpu"] else None, ".0f")))
    L.append("")
    L.append("**File size** at %d Hz: bytes per sample of the whole file, and the "
             "marginal bytes per extra sample (slope from %d to %d Hz, fixed costs "
             "cancel out). trec embeds the symbols of the sampled files by default "
             "(a fixed cost that makes the recording symbolize anywhere); "
             "trec-noarchive is trecord --no-archive, which like perf.data needs the "
             "same binaries at report time." % (mid, freqs[0], freqs[-1]))
    L.append("")
    stools = (["trec", "trec-noarchive"] if "trec" in tools else []) + \
        [t for t in tools if t != "trec"]
    L.append("| workload | " + " | ".join("%s B/sample (marginal)" % t for t in stools) +
             " | samples (" + ", ".join(stools) + ") |")
    L.append("|---|" + "---:|" * len(stools) + "---:|")
    for w in WORKLOADS:
        cells, counts = [], []
        for t in stools:
            s = res["size"].get("%s/%s" % (w, t), {})
            cells.append("%s (%s)" % (fmt(s.get("per_sample"), ",.0f"),
                                      fmt(s.get("marginal"), ",.0f")))
            counts.append(str(s.get("samples", "n/a")))
        L.append("| %s | %s | %s |" % (w, " | ".join(cells), ", ".join(counts)))
    L.append("")
    labels = sorted({k.split("/", 1)[1] for k in res["report"]},
                    key=lambda s: (not s.startswith("treport"), s))
    L.append("**Report speed** on the %d Hz recordings: microseconds per sample "
             "(median wall time / samples); in brackets the marginal time per extra "
             "sample (%d Hz to %d Hz recording, startup costs cancel out); peak RSS "
             "in MiB." % (mid, mid, freqs[-1]))
    L.append("")
    L.append("| workload | " + " | ".join(labels) + " |")
    L.append("|---|" + "---:|" * len(labels))
    for w in WORKLOADS:
        cells = []
        for lab in labels:
            r = res["report"].get("%s/%s" % (w, lab))
            cells.append("n/a" if not r else "%s us (%s), %.0f MiB" % (
                fmt(r["us_per_sample"], ".0f"), fmt(r["marginal_us"], ".0f"),
                r["max_rss_kib"] / 1024))
        L.append("| %s | %s |" % (w, " | ".join(cells)))
    L.append("")
    L.append("**Unwind quality**: of the samples whose leaf is in the workload "
             "binary, the share whose stack reaches `main` (or `worker_main` for "
             "threads). trec from treport --perf-script, perf from perf script.")
    L.append("")
    L.append("| workload | " + " | ".join(tools) + " |")
    L.append("|---|" + "---:|" * len(tools))
    for w in WORKLOADS:
        cells = []
        for t in tools:
            q = res["quality"].get("%s/%s" % (w, t))
            cells.append("n/a" if not q or not q[1] else
                         "%.1f%% (%d/%d)" % (100.0 * q[0] / q[1], q[0], q[1]))
        L.append("| %s | %s |" % (w, " | ".join(cells)))
    L.extend(bench_runtimes.table_rows(res, res.get("runtime_rows", []), tools))
    if res["bpf"]:
        L.append("")
        L.append("**BPF cost** of trecord at %d Hz (kernel.bpf_stats_enabled): run "
                 "time of its perf_event programs (entry and tail calls) per program "
                 "run (every tick of the recorded threads: `trecord -- cmd` opens its "
                 "events on them only) and per sample written for the workload; BPF time of "
                 "its other programs (process tracepoints) in total." % mid)
        L.append("")
        L.append("| workload | ns/run | runs | ns/written sample | written | other BPF ms |")
        L.append("|---|---:|---:|---:|---:|---:|")
        for w, b in res["bpf"].items():
            L.append("| %s | %s | %d | %s | %d | %.1f |" % (
                w, fmt(b["ns_per_run"], ",.0f"), b["runs"], fmt(b["ns_per_written"], ",.0f"),
                b["written"], b["other_ns"] / 1e6))
    L.extend(bench_costs.table_rows(res))
    L.extend(bench_gaps.table_rows(res))
    L.extend(bench_coldstart.table_rows(res))
    L.extend(bench_syswide.table_rows(res))
    return "\n".join(L) + "\n"


BEGIN, END = "<!-- bench-results:begin -->", "<!-- bench-results:end -->"
RT_BEGIN, RT_END = "<!-- bench-runtimes:begin -->", "<!-- bench-runtimes:end -->"


def runtimes_only(b, a):
    """--only selecting no C workload: the runtime rows alone, their table
    into README's bench-runtimes markers."""
    try:
        b.environment()
        bench_runtimes.quality(b, a.runtime_secs or 2.5, a.only)
    except (BenchError, RuntimeError) as e:
        log("bench: " + str(e))
        return 1
    env = b.res["env"]
    L = ["Measured %s on Linux %s, %d CPUs, %s, commit %s, rows matching `%s`, every "
         "runtime once per profiler at %d Hz, one after the other in one run; load "
         "average %.1f at the start, %.1f at the end." % (
             env["date"], env["kernel"], env["cpus"], env["perf"], env["commit"], a.only,
             b.mid_freq, env["load_start"], os.getloadavg()[0]), ""]
    L += bench_runtimes.runtime_table(b.res, [t for t in bench_runtimes.TOOLS if t in b.tools])
    text = "\n".join(L) + "\n"
    with open(os.path.join(a.out_dir, "runtimes.json"), "w") as f:
        json.dump(b.res, f, indent=1, sort_keys=True)
    print(text)
    if a.readme:
        update_readme(a.readme, text, RT_BEGIN, RT_END)
        log("updated " + a.readme)
    return 0


def update_readme(path, text, begin=BEGIN, end=END):
    with open(path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        raise BenchError("%s has no %s ... %s markers" % (path, begin, end))
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trecord", required=True)
    ap.add_argument("--treport", required=True)
    ap.add_argument("--workloads", required=True, help="directory of built workloads")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--report-runs", type=int, default=3)
    ap.add_argument("--secs", type=float, default=1.0, help="workload time alone")
    ap.add_argument("--freqs", default="99,999,4000")
    ap.add_argument("--readme", help="write the tables into this README's markers")
    ap.add_argument("--runtime-secs", type=float, default=2.5,
                    help="JIT and Go workload time for the quality rows (0: none)")
    ap.add_argument("--only", help="regex: only the rows whose name matches (busy, "
                    "bench_threads, bench_cxx, the runtime rows' labels: node, java, go, "
                    "python3); with no C workload left, only the runtime table")
    a = ap.parse_args()
    for w in list(WORKLOADS):
        if a.only and not re.search(a.only, w):
            del WORKLOADS[w]
    os.makedirs(a.out_dir, exist_ok=True)
    b = Bench(a)
    if not b.have_trec:
        log("note: %s or %s missing: perf columns only" % (a.trecord, a.treport))
    if not WORKLOADS:
        return runtimes_only(b, a)
    try:
        b.environment()
        b.calibrate()
        b.overhead()
        b.sizes()
        b.report_and_quality()
        if a.runtime_secs > 0:
            bench_runtimes.quality(b, a.runtime_secs, a.only)
        b.bpf_cost()
        bench_costs.run_all(b)
        bench_gaps.run_all(b)
        bench_coldstart.run_all(b)
        bench_syswide.run_all(b)
    except (BenchError, RuntimeError) as e:
        log("bench: " + str(e))
        return 1
    b.res["env"]["load_end"] = os.getloadavg()[0]
    text = render(b.res, b.tools, b.freqs, b.mid_freq)
    with open(os.path.join(a.out_dir, "results.json"), "w") as f:
        json.dump(b.res, f, indent=1, sort_keys=True)
    with open(os.path.join(a.out_dir, "results.md"), "w") as f:
        f.write(text)
    print(text)
    if a.readme:
        update_readme(a.readme, text)
        log("updated " + a.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
