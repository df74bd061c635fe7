#!/usr/bin/env python3
"""make bench, the flight recorder: trecord --overwrite against perf record
--overwrite --switch-output in the same run, on the issue's scenario.

The phases workload (no frame pointers) spins 3 s, stalls in stall_phase
for 1 s and 0.5 s later sends SIGUSR2 to its parent, the recorder. For the
file that signal wrote: the seconds it covers, its samples, those in
stall_phase and how many of them reach main (whole stacks), its size. Then
the switch latency: SIGUSR2 to the recorder's "wrote"/"Dump" line.

usage: bench_flight.py --trecord T --treport R --workloads DIR --out-dir DIR [--runs N]
"""
import argparse
import glob
import os
import re
import signal
import statistics
import subprocess
import sys
import time


def first_file(pattern):
    files = sorted(glob.glob(pattern))
    return files[0] if files else None


def trec_run(a, d):
    for f in glob.glob(os.path.join(d, "t.tr*")):
        os.unlink(f)
    subprocess.run([a.trecord, "-F", "99", "--overwrite", "--window", "2", "-o",
                    os.path.join(d, "t.tr"), "--", os.path.join(a.workloads, "phases"),
                    "3", "1", "3", "-k", "0.5"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    f = first_file(os.path.join(d, "t.tr.*"))
    folded = subprocess.run([a.treport, "--folded", f], capture_output=True, text=True).stdout
    n = stall = whole = 0
    for line in folded.splitlines():
        stack, _, count = line.rpartition(" ")
        n += int(count)
        if "stall_phase" in stack:
            stall += int(count)
            whole += int(count) if ";main;" in stack else 0
    info = subprocess.run([a.treport, "--info", f], capture_output=True, text=True).stdout
    span = float(re.search(r"summary:\s+([0-9.]+) s", info).group(1))
    return span, n, stall, whole, os.path.getsize(f)


def perf_run(a, d):
    for f in glob.glob(os.path.join(d, "p.data*")):
        os.unlink(f)
    subprocess.run(["perf", "record", "-e", "cpu-clock", "-F", "99", "-g", "--overwrite",
                    "--switch-output", "-o", os.path.join(d, "p.data"), "--",
                    os.path.join(a.workloads, "phases"), "3", "1", "3", "-k", "0.5"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    f = first_file(os.path.join(d, "p.data.*"))
    out = subprocess.run(["perf", "script", "-i", f, "-F", "time,ip,sym"], capture_output=True,
                         text=True).stdout
    times, n, stall, whole = [], 0, 0, 0
    for blk in out.strip().split("\n\n"):
        lines = blk.strip().splitlines()
        if not lines:
            continue
        n += 1
        times.append(float(lines[0].strip().rstrip(":")))
        syms = [l.split()[-1] for l in lines[1:] if l.split()]
        if "stall_phase" in syms:
            stall += 1
            whole += "main" in syms
    return max(times) - min(times), n, stall, whole, os.path.getsize(f)


def latency(cmd, marker):
    """ms from SIGUSR2 to the recorder's line naming the file."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    t0 = time.monotonic()
    p.send_signal(signal.SIGUSR2)
    for line in p.stderr:
        if marker in line:
            break
    ms = (time.monotonic() - t0) * 1e3
    p.wait()
    return ms


def main():
    ap = argparse.ArgumentParser()
    for k in ("--trecord", "--treport", "--workloads", "--out-dir"):
        ap.add_argument(k, required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    d = os.path.join(a.out_dir, "flight")
    os.makedirs(d, exist_ok=True)
    rows = {"trecord": [trec_run(a, d) for _ in range(a.runs)],
            "perf -g": [perf_run(a, d) for _ in range(a.runs)]}
    busy = os.path.join(a.workloads, "busy")
    lat = {
        "trecord": [latency([a.trecord, "-F", "999", "--overwrite", "--window", "5", "-o",
                             os.path.join(d, "l.tr"), "--", busy, "6"], "wrote")
                    for _ in range(a.runs)],
        "trecord --no-archive": [latency([a.trecord, "-F", "999", "--overwrite", "--window", "5",
                                          "--no-archive", "-o", os.path.join(d, "l.tr"), "--",
                                          busy, "6"], "wrote") for _ in range(a.runs)],
        "perf -g": [latency(["perf", "record", "-e", "cpu-clock", "-F", "999", "-g", "--overwrite",
                             "--switch-output", "-o", os.path.join(d, "l.data"), "--", busy, "6"],
                            "Dump") for _ in range(a.runs)],
    }
    med = statistics.median
    print("\n### Flight recorder: the file a SIGUSR2 after a 1 s stall writes (median of %d)\n"
          % a.runs)
    print("| recorder | covers (s) | samples | in stall_phase | ... reaching main | file bytes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, r in rows.items():
        print("| %s | %.2f | %d | %d | %d%% | %d |" % (
            name, med(x[0] for x in r), med(x[1] for x in r), med(x[2] for x in r),
            med(100 * x[3] // max(x[2], 1) for x in r), med(x[4] for x in r)))
    print("\n| recorder (-F 999, 5 s window) | SIGUSR2 to file written (ms) |")
    print("| --- | ---: |")
    for name, r in lat.items():
        print("| %s | %.0f |" % (name, med(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
