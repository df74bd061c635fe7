"""Per-sample cost, for make bench (called by bench.py): what one sample
costs the sampled program, measured per sample.

  gaps  `deep` (250 frames) and `chain` spin at the bottom of their stacks
        reading the CPU's counter (tests/workloads/interrupt_gaps.h, their
        -g mode); every jump over 2 us is time the CPU spent elsewhere: the
        timer interrupt and what the recorder does in it. Alone, under
        trecord, trecord with the walk cut (--max-cpu 0.01) and perf record
        -g at FREQ, GAP_RUNS interleaved rounds of GAP_SECS each, the
        workload on one CPU and the recorder on another. Per run the median
        jump; per recorder the median of the runs' medians; and trec less
        perf -g within each round. The slowdown (bench_costs.py) divides
        a whole run's CPU time, in which the host's drift is as large as
        the difference between the recorders; this one is not.
"""

import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_costs  # noqa: E402

FREQ = bench_costs.FREQ
GAP_RUNS = 11
GAP_SECS = 2
# (name, binary, arguments after -g SECS)
WORKLOADS = (("deep", "deep", ["250"]), ("chain", "chain", []))
RECORDERS = ("alone", "trec-leaf", "trec", "perf-g")
GAP_RE = re.compile(r"gaps=(\d+) gap_p25_ns=(\d+) gap_median_ns=(\d+) gap_p75_ns=(\d+)")


def gap_cmds(b):
    on_work, on_rec = bench_costs.pinned_cmds()
    cfg = {}
    for name, binary, args in WORKLOADS:
        work = on_work + [os.path.join(b.a.workloads, binary), "-g", str(GAP_SECS)] + args
        path = os.path.join(b.out, "gaps-" + name)
        trec = on_rec + [b.a.trecord, "-q", "-f", "-F", str(FREQ)]
        cfg[(name, "alone")] = work
        cfg[(name, "trec-leaf")] = trec + ["--max-cpu", bench_costs.LEAF_MAX_CPU,
                                           "-o", path + "-leaf.tr", "--"] + work
        cfg[(name, "trec")] = trec + ["-o", path + ".tr", "--"] + work
        cfg[(name, "perf-g")] = on_rec + [
            "perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(FREQ),
            "--no-buildid-cache", "-o", path + ".data", "--"] + work
    return cfg, bool(on_work)


def run_all(b):
    """Fills b.res["gaps"]."""
    if not b.have_trec:
        return
    cfg, pinned = gap_cmds(b)
    keys = list(cfg)
    runs = {k: [] for k in keys}
    load = [os.getloadavg()[0]]
    for r in range(GAP_RUNS):
        for k in bench_costs.rotated(keys, r):
            _, _, err = bench_costs.wait_rusage(cfg[k])
            m = GAP_RE.search(err)
            if not m:
                raise RuntimeError("%s printed no gaps:\n%s" % (" ".join(cfg[k]), err[-2000:]))
            runs[k].append({"n": int(m.group(1)), "median": int(m.group(3))})
    load.append(os.getloadavg()[0])
    res = {"runs": GAP_RUNS, "secs": GAP_SECS, "load": load, "pinned": pinned}
    for name, _, _ in WORKLOADS:
        row = {}
        for rec in RECORDERS:
            med = [x["median"] for x in runs[(name, rec)]]
            row[rec] = statistics.median(med)
            row[rec + "_iqr"] = bench_costs.quartiles(med)
            row[rec + "_per_s"] = statistics.median(x["n"] for x in runs[(name, rec)]) / GAP_SECS
        diff = [t["median"] - p["median"]
                for t, p in zip(runs[(name, "trec")], runs[(name, "perf-g")])]
        row["diff"], row["diff_iqr"] = statistics.median(diff), bench_costs.quartiles(diff)
        leaf = [t["median"] - p["median"]
                for t, p in zip(runs[(name, "trec-leaf")], runs[(name, "perf-g")])]
        row["leaf_diff"] = statistics.median(leaf)
        res[name] = row
    b.res["gaps"] = res


def table_rows(res):
    g = res.get("gaps")
    if not g:
        return []
    L = ["", "**Per-sample cost** at %d Hz: `deep` (250 frames) and `chain` spin at the "
         "bottom of their stacks reading the CPU's counter, and every jump over 2 µs is "
         "time the CPU spent elsewhere: the timer interrupt and what the recorder does in "
         "it. Median jump in ns, the median of %d interleaved %d-s rounds (load average "
         "%.1f, then %.1f)%s, in brackets the interquartile range of the rounds' medians, "
         "and jumps per second (alone: the kernel's own ticks). The last two columns are "
         "medians of the rounds' differences from perf -g: the walk cut's (what trec's "
         "sample costs without its walk) and trec's (what trec costs a sample beyond "
         "perf -g, in brackets their interquartile range). *trec, walk cut* as in the "
         "slowdown." % (
             FREQ, g["runs"], g["secs"], g["load"][0], g["load"][1],
             ", the workload on one CPU and the recorder on another" if g["pinned"] else ""),
         "", "| workload | alone | trec, walk cut | trec | perf -g | walk cut − perf -g "
         "| trec − perf -g |",
         "|---|---:|---:|---:|---:|---:|---:|"]
    for name, _, _ in WORKLOADS:
        r = g[name]
        L.append("| %s | %s | %s | %s (%s to %s) |" % (name, " | ".join(
            "%s (%s-%s), %s/s" % (format(r[rec], ",.0f"), format(r[rec + "_iqr"][0], ",.0f"),
                                  format(r[rec + "_iqr"][1], ",.0f"),
                                  format(r[rec + "_per_s"], ",.0f"))
            for rec in RECORDERS), *(format(x, "+,.0f") for x in (
                r["leaf_diff"], r["diff"], r["diff_iqr"][0], r["diff_iqr"][1]))))
    return L


def main():
    """Standalone: only this table (make bench runs it with the rest)."""
    import bench_standalone

    def add_args(ap):
        ap.add_argument("--secs", type=float, default=1.0)

    return bench_standalone.main(__doc__, run_all, table_rows, workloads=True,
                                 add_args=add_args)


if __name__ == "__main__":
    sys.exit(main())
