# scripts/timeline.py: a per-thread timeline SVG. On a synthetic recording
# (threads and weights known): xmllint, a row per thread named "comm (tid)",
# bars whose sample counts add up to each thread's, colours per function
# with a legend, hostile names escaped. On a real recording of the pipeline
# workload (named threads in phases), when trecord can record here: the
# thread names, and each thread's function in its phase.
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "report"))
import trlib as t  # noqa: E402
import views_spec as v  # noqa: E402

SCRIPT = os.path.join(t.ROOT, "scripts", "timeline.py")
ENV = dict(os.environ, TREPORT=t.TREPORT)
NS = "{http://www.w3.org/2000/svg}"


def timeline(*args):
    return subprocess.run([sys.executable, SCRIPT] + [str(a) for a in args], capture_output=True, text=True, env=ENV)


def xmllint_ok(path):
    if not shutil.which("xmllint"):
        print("SKIP: xmllint not installed (apt-get install libxml2-utils)")
        return True
    return subprocess.run(["xmllint", "--noout", path]).returncode == 0


def parse(path):
    """(row labels, [(thread label, function, start, end, samples)]) from the bars' titles."""
    root = ET.parse(path).getroot()
    labels, bars = [], []
    for e in root.iter(NS + "text"):
        ti = e.find(NS + "title")
        if ti is not None and re.search(r": pid \d+, tid \d+, \d+ samples$", ti.text):
            labels.append("".join(e.itertext())[len(ti.text):])
    for e in root.iter(NS + "rect"):
        ti = e.find(NS + "title")
        if e.get("class") == "bar" and ti is not None:
            m = re.fullmatch(r"(.*) \(tid (\d+)\): (.*), (-?[\d.]+)-([\d.]+) s, (\d+) samples", ti.text, re.S)
            bars.append((m.group(1), int(m.group(2)), m.group(3), float(m.group(4)), float(m.group(5)), int(m.group(6))))
    return labels, bars


d = t.tmpdir()
a, b, sa, sb = v.busy_recordings(d)
svg = os.path.join(d, "a.svg")
r = timeline(a, "-o", svg)
t.check(r.returncode == 0 and os.path.exists(svg), "timeline: writes the SVG", r.stderr)
t.check(xmllint_ok(svg), "timeline: xmllint --noout accepts it")
labels, bars = parse(svg)
t.check(labels == ["busy (42)", "busy (43)", "my-prog (51)"], "timeline: one row per thread, 'comm (tid)', by pid",
        labels)
per_tid = {}
for comm, tid, f, s, e, n in bars:
    per_tid[tid] = per_tid.get(tid, 0) + n
want = {}
for s in sa:
    want[s[2]] = want.get(s[2], 0) + s[4]
t.check(per_tid == want, "timeline: each thread's bars hold its samples", (per_tid, want))
funcs = {(tid, f) for _, tid, f, _, _, _ in bars}
# the syscall stack's user leaf: main's frame, or a function inlined there
sys_stack = [k.split(";") for k in t.parse_folded(t.treport(a, "--folded").stdout) if "entry_SYSCALL_64" in k][0]
sys_leaf = sys_stack[sys_stack.index("entry_SYSCALL_64") - 1]
t.check({(42, "spin.constprop.0"), (43, "cmp_ints"), (43, sys_leaf), (51, "spin.constprop.0")} <= funcs,
        "timeline: bars name the thread's own innermost function (kernel frames looked through)", funcs)
t.check(all(0 <= s < e <= 2.1 for _, _, _, s, e, _ in bars), "timeline: times from the recording start")
text = open(svg).read()
t.check("spin.constprop.0 (" in text and "cmp_ints (" in text, "timeline: a legend of the functions")
svgp = os.path.join(d, "p.svg")
r = timeline(a, "-o", svgp, "--pid", "50")
t.check(r.returncode == 0 and parse(svgp)[0] == ["my-prog (51)"], "timeline: filters passed to treport")

h = v.hostile_recording(d)
svgh = os.path.join(d, "h.svg")
r = timeline(h, "-o", svgh)
t.check(r.returncode == 0 and xmllint_ok(svgh), "timeline: hostile names: xmllint accepts it", r.stderr)
try:
    labels, bars = parse(svgh)
    t.check(bars and bars[0][0] == v.decode_like_treport(v.HOSTILE_COMM) and
            bars[0][2] == "[" + v.decode_like_treport(v.HOSTILE_PATH.rsplit(b"/", 1)[1]) + "]",
            "timeline: hostile names come back as written", bars)
except ET.ParseError as e:
    t.check(False, "timeline: hostile names: Python's XML parser reads it", e)
r = timeline(os.path.join(d, "missing.tr"), "-o", os.path.join(d, "m.svg"))
t.check(r.returncode == 1 and "Traceback" not in r.stderr, "timeline: treport's error reported, no traceback", r.stderr)

# a real recording: named threads in phases
tr = os.path.join(d, "pipeline.tr")
rec = subprocess.run([os.environ.get("TRECORD", os.path.join(t.BUILD, "trecord")), "-q", "-f", "-F", "499", "-o", tr,
                      "--", os.path.join(t.WORKLOADS, "pipeline"), "1"], capture_output=True, text=True)
if rec.returncode == 0:
    svgr = os.path.join(d, "pipeline.svg")
    r = timeline(tr, "-o", svgr)
    t.check(r.returncode == 0 and xmllint_ok(svgr), "timeline: real recording: xmllint accepts it", r.stderr)
    labels, bars = parse(svgr)
    names = {re.sub(r" \(\d+\)$", "", l) for l in labels}
    t.check({"pipeline", "hasher-1", "hasher-2", "compressor"} <= names, "timeline: real recording: thread names", labels)

    def main_fn(comm):
        c = {}
        for b_ in bars:
            if b_[0] == comm:
                c[b_[2]] = c.get(b_[2], 0) + b_[5]
        return max(c, key=c.get) if c else None
    t.check(main_fn("hasher-1") == "hash_block" and main_fn("compressor") == "compress_block",
            "timeline: real recording: each worker runs its function")
    parse_end = max((e for c, _, f, s, e, _ in bars if f == "parse_record"), default=None)
    summ_start = min((s for c, _, f, s, e, _ in bars if f == "summarize"), default=None)
    hash_start = min((s for c, _, f, s, e, _ in bars if f == "hash_block"), default=None)
    t.check(None not in (parse_end, summ_start, hash_start) and parse_end <= hash_start + 0.05 and
            hash_start < summ_start, "timeline: real recording: parse, then hash, then summarize",
            (parse_end, hash_start, summ_start))
else:
    print("SKIP: trecord cannot record here: " + rec.stderr.strip()[:200])
t.finish()
