import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()
tr = os.path.join(d, "busy.tr")
trecord = os.environ.get("TRECORD", os.path.join(t.BUILD, "trecord"))
r = subprocess.run([trecord, "-F", "499", "-f", "-q", "-o", tr, "--",
                    os.path.join(t.WORKLOADS, "busy"), "-n", "500"], capture_output=True, text=True)
if r.returncode != 0 or not os.path.exists(tr):
    if re.search(r"permission|not permitted|CAP_|BPF", r.stderr, re.I):
        print("SKIP: trecord cannot load BPF here: " + r.stderr.strip()[:200])
        sys.exit(77)
t.check(r.returncode == 0 and os.path.exists(tr), "e2e: trecord recorded busy", r.stderr)

info = t.treport(tr, "--info").stdout
m = re.search(r"samples:\s+(\d+) read", info)
nsamples = int(m.group(1)) if m else 0
t.check(nsamples > 100, "e2e: enough samples (%d)" % nsamples)

folded = t.parse_folded(t.treport(tr, "--folded").stdout)
t.check(sum(folded.values()) == nsamples, "e2e: folded counts sum to the samples read")
busy = {k: v for k, v in folded.items() if k.startswith("busy;")}
in_main = sum(v for k, v in busy.items() if ";main;" in k)
# Unwinding completeness is trecord's to test; here: the stacks treport
# shows are whole or say why not (samples from before trecord knew the
# process end in an error frame).
t.check(sum(busy.values()) > 0 and in_main >= 0.5 * sum(busy.values()),
        "e2e: busy samples unwind through main (%d of %d)" % (in_main, sum(busy.values())))
t.check(any(k.endswith(";cmp_ints") for k in busy) and any(";recurse;recurse;" in k for k in busy),
        "e2e: workload functions named (cmp_ints leaf, recursion)")
t.check(any("qsort" in k for k in busy), "e2e: libc frames named (qsort)")

ps = t.treport(tr, "--perf-script").stdout
period = int(re.search(r"freq_hz\s+(\d+)", info).group(1))
period = 1000000000 // period
sc = t.stackcollapse(ps)
t.check(sc == {k: v * period for k, v in folded.items()},
        "e2e: perf-script through stackcollapse rules equals folded")

if t.have_go():
    pb = os.path.join(d, "busy.pb.gz")
    t.treport(tr, "--pprof", "-o", pb)
    pf = t.pprof_folded(pb)
    # unresolved frames: pprof shows the address, folded the [dso]; compare resolved stacks
    clean = lambda dct: {k: v for k, v in dct.items() if "[" not in k and "0x" not in k}
    t.check(clean(pf) == clean(folded) and clean(folded), "e2e: pprof stacks equal folded (resolved stacks)")

# libc's qsort_r as the folded stacks name it (perf's alias rule picks
# among qsort_r, __qsort_r and __GI___qsort_r)
qsort_name = next((f for k in folded for f in k.split(";") if f.endswith("qsort_r")), "qsort_r")
svg = os.path.join(d, "busy.svg")
t.treport(tr, "--flamegraph", "-o", svg)
text = open(svg).read()
lint = subprocess.run(["xmllint", "--noout", svg], capture_output=True, text=True) \
    if shutil.which("xmllint") else None
t.check((lint is None or lint.returncode == 0) and "<title>all (%d samples, 100.00%%)</title>" % nsamples in text and
        all(">%s (" % f in text for f in ("main", "cmp_ints", "recurse", qsort_name)),
        "e2e: the flame graph (xmllint) holds the total and the workload's functions")
js = [json.loads(l) for l in t.treport(tr, "--json").stdout.splitlines()]
jf = {}
for s in js:
    k = ";".join([s["comm"]] + [f["name"].replace(";", ":") for f in reversed(s["frames"])])
    jf[k] = jf.get(k, 0) + s["weight"]
t.check(sum(s["weight"] for s in js) == nsamples and jf == folded, "e2e: --json holds every sample, stacks as --folded")

summ = t.treport(tr).stdout
t.check("cmp_ints" in summ and "samples" in summ.splitlines()[0], "e2e: summary names the hot function")
t.finish()
