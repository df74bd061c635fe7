import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t
import viewers as v

if not v.have_perf():
    print("SKIP: perf is not installed (Debian: linux-perf)")
    sys.exit(77)
t.build_workloads()
d = t.tmpdir()
busy_build_id = t.build_id(os.path.join(t.WORKLOADS, "busy"))


def diff(a, b):
    return "\n".join("%s %s" % kv for kv in sorted(set(a.items()) ^ set(b.items())))[:3000]


def same_top(tr, data, what):
    """perf report --stdio's self overhead equals treport's summary, function
    by function (those of 1% or more, named ones)."""
    ps, pr = v.perf_report_self(data)
    ts = v.treport_self(tr)
    keep = lambda m: {s: p for (dso, s), p in m.items() if p >= 1.0 and not s.startswith("0x")}
    t.check(pr.returncode == 0 and keep(ps) and keep(ps) == keep(ts),
            "%s: perf report --stdio lists the summary's top functions and shares" % what,
            "perf: %s\ntreport: %s\n%s" % (sorted(keep(ps).items()), sorted(keep(ts).items()),
                                          pr.stderr[-500:]))


# ---- a synthetic recording: processes, threads, kernel, error, Python frames ----
tr = v.synthetic(d)
data = os.path.join(d, "syn.data")
r = t.treport(tr, "--perf-data", "-o", data, check_rc=False)
t.check(r.returncode == 0 and "perf --buildid-dir" in r.stderr and os.path.isdir(data + ".debug"),
        "synthetic: --perf-data writes the file and its build-id cache", r.stderr)
folded = v.folded_no_inline(tr)
pf, n, pr = v.perf_script_folded(data)
t.check(pr.returncode == 0 and n == sum(folded.values()),
        "synthetic: perf script prints treport's sample count (%d, weights written as samples)" % n,
        pr.stderr[-1000:])
t.check(pf == folded, "synthetic: perf script through stackcollapse-perf rules equals --folded --no-inline "
        "(kernel, module, error, Python, JIT, raw-pc frames; threads; comm changes)", diff(pf, folded))
r = v.perf(data, "script", "--show-task-events", "--show-mmap-events", "-F", "comm,pid,tid,time")
t.check("PERF_RECORD_FORK(50:50):(42:42)" in r.stdout and "PERF_RECORD_EXIT(50:50):(42:42)" in r.stdout
        and re.search(r"PERF_RECORD_COMM exec: child:50/50", r.stdout) is not None,
        "synthetic: FORK, COMM (exec) and EXIT records", r.stdout[:2000])
t.check("[trec]/tmp/perf-42.map" in r.stdout,
        "synthetic: JIT names in a synthetic DSO perf does not take for its own perf map", r.stdout[-1500:])
t.check(re.search(r"PERF_RECORD_MMAP2 42/42: \[0x555555554000\(0x2000\) @ 0x1000 <%s>\]: r-xp \S+/busy"
                  % busy_build_id, r.stdout) is not None and "[trec-errors]" in r.stdout,
        "synthetic: MMAP2 at the recorded mapping with its build-id; synthetic DSOs for trec's own frames",
        [line for line in r.stdout.splitlines() if "MMAP" in line][:10])
r = v.perf(data, "report", "--header-only")
t.check(all(s in r.stdout for s in ("event : name = cpu-clock", "CALLCHAIN", "IDENTIFIER",
                                    "cmdline : ./busy 2", "nrcpus avail : 2")),
        "synthetic: header and attr as perf report --header-only shows them", r.stdout[-1500:])
r = v.perf(data, "buildid-list")
t.check(busy_build_id in r.stdout and "[kernel.kallsyms]" in r.stdout, "synthetic: build-id table",
        r.stdout)
same_top(tr, data, "synthetic")
r = v.perf(data, "report", "--stdio", "--children", "--call-graph", "graph,0.5,caller", "--max-stack", "1024")
t.check(r.returncode == 0 and re.search(r"--\d+\.\d+%--recurse", r.stdout) is not None,
        "synthetic: perf report --call-graph shows the callchains", r.stdout[-1500:] + r.stderr[-500:])

# ---- a real recording, its binary gone: names from the build-id cache alone ----
trecord = os.environ.get("TRECORD", os.path.join(t.BUILD, "trecord"))
if os.geteuid() != 0 or not os.access(trecord, os.X_OK):
    print("SKIP: trecord needs root: the recorded part")
else:
    bindir = os.path.join(d, "bin")
    os.mkdir(bindir)
    prog = os.path.join(bindir, "busy")
    shutil.copy(os.path.join(t.WORKLOADS, "busy"), prog)
    rec = os.path.join(d, "busy.tr")
    r = subprocess.run([trecord, "-F", "999", "-f", "-q", "-o", rec, "--", prog, "1"],
                       capture_output=True, text=True)
    os.unlink(prog)  # perf must name busy's frames from the cache
    if r.returncode != 0 and re.search(r"permission|not permitted|CAP_|BPF", r.stderr, re.I):
        print("SKIP: trecord cannot load BPF here: " + r.stderr.strip()[:200])
        t.finish()
    t.check(r.returncode == 0, "recorded busy", r.stderr)
    data = os.path.join(d, "busy.data")
    r = t.treport(rec, "--perf-data", "-o", data, check_rc=False)
    t.check(r.returncode == 0, "busy: --perf-data", r.stderr)
    folded = v.folded_no_inline(rec)
    pf, n, pr = v.perf_script_folded(data)
    t.check(n == sum(folded.values()) and n > 50,
            "busy: perf script prints treport's sample count (perf %d, treport %d)"
            % (n, sum(folded.values())), pr.stderr[-1000:])
    left_perf, left_treport, via_plt = v.match_plt(pf, folded)
    t.check(not left_perf and not left_treport,
            "busy: perf script's stacks are --folded --no-inline's (%d stacks; %d samples in a libc "
            "PLT stub perf names from the local libc)" % (len(folded), via_plt),
            diff(left_perf, left_treport))
    own = lambda m: {k: c for k, c in m.items() if k.split(";")[-1] in ("cmp_ints", "spin.constprop.0")}
    reach = lambda m: sum(c for k, c in own(m).items() if ";main;" in k)
    total = sum(own(pf).values())
    t.check(total and reach(pf) == reach(folded) and reach(pf) >= 0.9 * total,
            "busy: stacks unwound without frame pointers reach main in perf (%d of %d)"
            % (reach(pf), total))
    same_top(rec, data, "busy")

# ---- hostile values: a recording perf.data cannot hold as it is ---------------------
busy = os.path.join(t.WORKLOADS, "busy")
spin = {n: a for a, _, n in t.text_symbols(busy)}["spin.constprop.0"] + 0x10
spec = ["meta freq_hz banana", "file 0x1111 %s %s" % (busy, t.build_id(busy)),
        "file 0x2222 ../../../etc/evil 0011", "file 0x3333 //anon -",
        "map 5 9 0xfffffffffffff000 0xffffffffffffffff 0 0x1111 0xffffffffffff0000 5 wrap", "maps",
        "pev 1 fork 9 9 4294967295 0 -", "pev 18446744073709551615 exit 4294967295 4294967295 0 -5 -",
        "sample 10 9 9 0 18446744073709551615 busy u:0x1111:0x%x" % spin,  # weight past every limit
        "sample 11 4294967295 0 4294967295 1 - u:0x2222:0x10 u:0x3333:0x20 e:9999 k:0x10",
        "sample 18446744073709551615 0 0 0 1 swapper k:0xffffffff81000150",
        "sample 12 9 9 0 1 busy " + " ".join(["k:0xffffffff81000150"] * 4096 +
                                             ["u:0x1111:0x%x:2" % spin] * 4096)]  # past a record's size
bad = t.write_tr(os.path.join(d, "hostile.tr"), "\n".join(spec) + "\n")
data = os.path.join(d, "hostile.data")
r = t.treport(bad, "--perf-data", "-o", data, check_rc=False)
t.check(r.returncode == 0 and "Sanitizer" not in r.stderr and "runtime error" not in r.stderr
        and "lose their outermost frames" in r.stderr and not os.path.exists(os.path.join(d, "etc")),
        "hostile values: --perf-data runs cleanly, says what it cut, writes only under FILE.debug",
        r.stderr[-1500:])
pf, n, pr = v.perf_script_folded(data)
t.check(pr.returncode == 0 and n == 4096 + 3, "hostile values: perf reads the file (%d samples)" % n,
        pr.stderr[-800:])

# ---- errors: one clear message, non-zero exit --------------------------------------


def one_message(r):
    return len([line for line in r.stderr.splitlines() if line.startswith("treport:")]) == 1


r = t.treport(tr, "--perf-data", check_rc=False)
t.check(r.returncode == 2 and one_message(r) and "-o" in r.stderr, "no -o: usage error", r.stderr)
r = t.treport(tr, "--perf-data", "-o", os.path.join(d, "no", "such", "x.data"), check_rc=False)
t.check(r.returncode != 0 and one_message(r) and "cannot write" in r.stderr, "unwritable output", r.stderr)
r = t.treport(tr, "--perf-data", "--pid", "12345", "-o", os.path.join(d, "none.data"), check_rc=False)
t.check(r.returncode != 0 and one_message(r) and "nothing to export" in r.stderr,
        "nothing to export", r.stderr)
r = t.treport(tr, tr, "--perf-data", "-o", os.path.join(d, "two.data"), check_rc=False)
t.check(r.returncode != 0 and one_message(r) and "one recording" in r.stderr, "two recordings", r.stderr)
t.finish()
