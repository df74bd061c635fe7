# What a sample and a wait weigh in treport's outputs, on gen_tr recordings
# whose truth is known: trecord -c's exact period (META sample_period_ns,
# not the rounded freq_hz), recordings of different rates merged (the
# summary weighs them in CPU time, the outputs that add samples as equals
# warn), --time cutting a wait to the range, and --info's counts after
# the filters.
import os
import re
import shutil

import trlib as t

d = t.tmpdir()
KS = ["ksym 0xffffffff81000000 t f_one", "ksym 0xffffffff81001000 t f_two",
      "ksym 0xffffffff81002000 t f_end", "ksyms 0"]
ONE, TWO = "k:0xffffffff81000010", "k:0xffffffff81001010"


def rec(name, meta, body):
    lines = ["meta %s %s" % kv for kv in meta] + KS + body
    return t.write_tr(os.path.join(d, name), "\n".join(lines) + "\n")


def folded(*args):
    r = t.treport("--folded", *args)
    return {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in r.stdout.splitlines()}, r.stderr


# --- trecord -c 400000000: freq_hz is rounded to 3; the period is exact ----
c = rec("c.tr", [("freq_hz", "3"), ("sample_period_ns", "400000000")],
        ["sample 1000000000 1 1 0 1 prog " + ONE, "repeat 9", "summary 0 5000000000 10 0 0"])
s = t.treport(c).stdout
t.check("(4.000 s of CPU)" in s, "-c: the summary's CPU time is 10 samples x 400 ms", s[:400])
t.check("one every 400000000 ns of CPU" in s, "-c: the summary gives the period, not 3 Hz")
info = t.treport("--info", c).stdout
t.check(re.search(r"samples: +10 read, 10 after filters, one every 400000000 ns", info),
        "-c: --info gives the period", info)
ps = t.treport("--perf-script", c).stdout
periods = re.findall(r"\s(\d+) cpu-clock:", ps)
t.check(len(periods) == 10 and set(periods) == {"400000000"}, "-c: perf script's period is 400000000",
        periods[:3])
f, _ = folded("--event", "wall", c)
t.check(f == {"prog;f_one": 4000000}, "-c: --event wall counts 4 s (in us)", f)
if shutil.which("perf"):
    pd = os.path.join(d, "c.data")
    t.treport("--perf-data", "-o", pd, c)
    r = t.run(["perf", "script", "-i", pd, "-F", "period"])
    t.check(r.returncode == 0 and set(r.stdout.split()) == {"400000000"},
            "-c: perf script on --perf-data reads period 400000000", r.stdout[:200] + r.stderr[:300])
    r = t.run(["perf", "evlist", "-v", "-i", pd])
    t.check("sample_freq }: 400000000" in r.stdout and "freq: 1" not in r.stdout,
            "-c: perf.data's attr has perf -c's sample_period, not a frequency", r.stdout)

# -F 999: sample_period_ns is 10^9 / 999; still a frequency
f999 = rec("f999.tr", [("freq_hz", "999"), ("sample_period_ns", "1001001")],
           ["sample 1000000000 1 1 0 1 prog " + ONE, "summary 0 2000000000 1 0 0"])
t.check(" at 999 Hz" in t.treport(f999).stdout, "-F: the summary gives the rate")
# a file without sample_period_ns (before it was written): from freq_hz
old = rec("old.tr", [("freq_hz", "100")],
          ["sample 1000000000 1 1 0 1 prog " + ONE, "repeat 9", "summary 1 2000000000 10 0 0"])
t.check("(0.100 s of CPU)" in t.treport(old).stdout, "no sample_period_ns: the period is 1 / freq_hz")

# --- merged recordings of different rates ----------------------------------
fast = rec("fast.tr", [("freq_hz", "1000"), ("sample_period_ns", "1000000")],
           ["sample 1000000000 1 1 0 1 prog " + ONE, "repeat 99", "summary 1 2000000000 100 0 0"])
slow = rec("slow.tr", [("freq_hz", "100"), ("sample_period_ns", "10000000")],
           ["sample 1000000000 2 2 0 1 prog " + TWO, "repeat 99", "summary 1 2000000000 100 0 0"])
r = t.treport(fast, slow)
rows = {m.group(2): float(m.group(1)) for m in
        re.finditer(r"^ +([\d.]+)% +[\d.]+% +\d+ +\S+ +(f_\w+)$", r.stdout.split("by total")[0], re.M)}
t.check(rows == {"f_two": 90.91, "f_one": 9.09}, "rates: the summary weighs 100 samples at 100 Hz "
        "10x those at 1000 Hz", r.stdout)
t.check("weighed in CPU time" in r.stdout and "(1.100 s of CPU)" in r.stdout,
        "rates: ... and says so")
t.check(not r.stderr, "rates: the summary does not warn", r.stderr)
f, err = folded(fast, slow)
t.check(f == {"prog;f_one": 100, "prog;f_two": 100}, "rates: --folded keeps the counts", f)
t.check("sampled at different rates" in err, "rates: ... and warns", err)
for args in (["--json"], ["--diff", "--folded"]):
    err = t.treport(*args, fast, slow).stderr
    t.check("sampled at different rates" in err, "rates: %s warns" % " ".join(args), err)
for args in (["--pprof", "-o", os.path.join(d, "p.pb.gz")], ["--diff", "--folded", "--normalize"],
             ["--perf-script"]):
    err = t.treport(*args, fast, slow).stderr
    t.check(not err, "rates: %s, which weighs by period, does not warn" % " ".join(args[:2]), err)
r = t.treport(fast, fast)
t.check("weighed in CPU time" not in r.stdout and not r.stderr and " 100.00% " in r.stdout,
        "rates: one rate: counted in samples, no warning", r.stdout + r.stderr)
# only the kept samples' recordings count: --pid 1 keeps the fast one
err = t.treport("--folded", "--pid", "1", fast, slow).stderr
t.check(not err, "rates: filtered to one recording, no warning", err)

# --- --time cuts a wait to the range ----------------------------------------
# (the recording starts at 1 s: --time is relative to the start)
w = rec("w.tr", [("freq_hz", "100"), ("sample_period_ns", "10000000")],
        ["wait 1500000000 1 1 0 1800000000 prog " + ONE,
         "sample 2200000000 1 1 0 1 prog " + TWO, "summary 1000000000 4000000000 2 0 0"])
for rng, want in (("1,2", 1000000), ("0,1", 500000), ("0.4,0.6", 100000), ("2,3", 300000)):
    f, _ = folded("--event", "offcpu-time", "--time", rng, w)
    t.check(f == {"prog;f_one": want}, "--time %s: the 0.5-2.3 s wait counts %d us of it" % (rng, want), f)
f, _ = folded("--event", "offcpu-time", "--time", "2.4,", w)
t.check(f == {}, "--time 2.4,: the wait ended before it", f)
f, _ = folded("--event", "wall", "--time", "1,2", w)
t.check(f == {"prog;f_one": 1000000, "prog;f_two": 10000}, "--time 1,2 --event wall: 1 s of the wait "
        "and the sample's 10 ms", f)
js = t.treport("--event", "offcpu-time", "--perf-script", "--time", "1,2", w).stdout
t.check(re.search(r" 2\.000000: +1000000000 offcpu-time:", js),
        "--time 1,2 --perf-script: the wait starts at 1 s and lasts 1 s", js[:300])

# --- --info: after filters, in samples and waits ----------------------------
info = t.treport("--info", "--event", "wall", w).stdout
t.check(re.search(r"samples: +1 read, 1 after filters", info), "--info --event wall: samples, not ns", info)
t.check(re.search(r"off-CPU: +1 waits read, 1 after filters", info), "--info --event wall: the wait kept")
info = t.treport("--info", "--event", "offcpu-time", w).stdout
t.check(re.search(r"samples: +1 read, 0 after filters", info) and
        re.search(r"off-CPU: +1 waits read, 1 after filters", info),
        "--info --event offcpu-time: the sample is not kept, the wait is", info)
info = t.treport("--info", "--time", "1.5,", w).stdout
t.check(re.search(r"samples: +1 read, 0 after filters", info), "--info --time: the filter counts", info)
t.check(re.search(r"samples: .* over 0\.000 s \(cpu-clock\)", t.treport("--info", w).stdout),
        "--info: the cpu-clock span leaves out the waits")
# waits BPF lost: the time blocked lacks them, and treport says so
wl = rec("wl.tr", [("freq_hz", "100")],
         ["wait 1500000000 1 1 0 1000000 prog " + ONE, "metric 2 OFFCPU_NO_SWITCH_IN 1",
          "metrics 2000000000", "summary 1000000000 3000000000 1 0 0"])
err = t.treport("--event", "offcpu-time", "--folded", wl).stderr
t.check("1 off-CPU wait(s) were lost" in err, "lost waits: --event offcpu-time warns", err)
r = t.treport(wl)
t.check(not r.stderr and "1 waits, 0.001000 s blocked, 1 waits lost" in r.stdout,
        "lost waits: the cpu-clock summary counts them, without a warning", r.stdout + r.stderr)
err = t.treport("--event", "offcpu-time", "--folded", w).stderr
t.check(not err, "lost waits: none, no warning", err)

# --info names a process as its main thread, not its last sampled one
pn = rec("pn.tr", [("freq_hz", "100")],
         ["sample 1000000000 5 6 0 1 worker " + ONE, "sample 1100000000 5 5 0 1 mainprog " + ONE,
          "sample 1200000000 5 6 0 1 worker " + ONE, "summary 1 2000000000 3 0 0"])
info = t.treport("--info", pn).stdout
t.check(re.search(r"^ +5 mainprog ", info, re.M), "--info: the process is named as its main thread", info)
t.finish()
