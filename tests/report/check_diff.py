# treport --diff BASE NEW: folded "stack base new" lines whose columns are
# each recording's own folded counts (so they sum to its total), the
# differential flame graph (xmllint, widths from the new recording, red
# where frames grew, blue where they shrank, --normalize), the summary of
# the functions that changed most, and the usage errors.
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t
import views_spec as v

NS = "{http://www.w3.org/2000/svg}"
d = t.tmpdir()
a, b, sa, sb = v.busy_recordings(d)
ta, tb = sum(s[4] for s in sa), sum(s[4] for s in sb)

fa = t.parse_folded(t.treport(a, "--folded").stdout)
fb = t.parse_folded(t.treport(b, "--folded").stdout)
lines = t.treport("--diff", "--folded", a, b).stdout.splitlines()
rows = {}
for l in lines:
    stack, nb, nn = l.rsplit(" ", 2)
    rows[stack] = (int(nb), int(nn))
t.check(all(re.fullmatch(r"\S.* \d+ \d+", l) for l in lines), "diff folded: 'stack count_base count_new' lines")
t.check(sum(r[0] for r in rows.values()) == ta and sum(r[1] for r in rows.values()) == tb,
        "diff folded: the columns sum to the two totals (%d, %d)" % (ta, tb))
t.check(rows == {k: (fa.get(k, 0), fb.get(k, 0)) for k in set(fa) | set(fb)},
        "diff folded: each column is its recording's --folded")
t.check(lines == sorted(lines, key=lambda l: l.rsplit(" ", 2)[0].encode()), "diff folded: sorted by stack")
t.check(t.treport("--diff", "--folded", "--normalize", a, b).stdout.splitlines() == lines,
        "diff folded: --normalize leaves the raw counts")
same = t.treport("--diff", "--folded", a, a).stdout.splitlines()
t.check(all(l.rsplit(" ", 2)[1] == l.rsplit(" ", 2)[2] for l in same),
        "diff folded: a recording against itself")
fp = t.treport("--diff", "--folded", "--pid", "42", a, b).stdout.splitlines()
t.check(sum(int(l.split()[-2]) for l in fp) == sum(s[4] for s in sa if s[1] == 42), "diff folded: filters apply")


def frames(path):
    root = ET.parse(path).getroot()
    g = next(e for e in root.iter(NS + "g") if e.get("id") == "frames")
    out = {}
    for f in g.findall(NS + "g"):
        title = f.find(NS + "title").text
        rgb = tuple(int(x) for x in re.findall(r"\d+", f.find(NS + "rect").get("fill")))
        out.setdefault(title.rpartition(" (")[0], []).append((title, rgb, int(f.get("data-w"))))
    return out


for norm in ([], ["--normalize"]):
    svg = os.path.join(d, "diff%s.svg" % len(norm))
    t.treport("--diff", "--flamegraph", *norm, "-o", svg, a, b)
    if shutil.which("xmllint"):
        r = subprocess.run(["xmllint", "--noout", svg], capture_output=True, text=True)
        t.check(r.returncode == 0, "diff flamegraph%s: xmllint --noout accepts it" % " ".join([""] + norm), r.stderr)
    fr = frames(svg)
    root = fr["all"][0]
    t.check(root[2] == tb and "%d samples, 100.00%%; base %d samples" % (tb, ta) in root[0],
            "diff flamegraph%s: root is the new total, its title the base's too" % " ".join([""] + norm), root)
    cmp_ints, spin = fr["cmp_ints"][0][1], fr["spin.constprop.0"][0][1]
    t.check(cmp_ints[0] == 255 and cmp_ints[2] < 255 and spin[2] == 255 and spin[0] < 255,
            "diff flamegraph%s: grown frames red, shrunk frames blue" % " ".join([""] + norm), (cmp_ints, spin))
    t.check("[error: NATIVE_STACK_DELTA_INVALID]" not in fr,
            "diff flamegraph%s: frames gone from the new one are not drawn" % " ".join([""] + norm))
    if norm:
        # b's total is larger: normalised, main's share barely moved, raw it grew a lot
        raw_main = frames(os.path.join(d, "diff0.svg"))["main"][0][1]
        t.check(fr["main"][0][1][1] > raw_main[1], "diff flamegraph --normalize: changes relative to the totals",
                (fr["main"][0][1], raw_main))

summ = t.treport("--diff", a, b).stdout
t.check("base: %s, %d samples" % (a, ta) in summ and "new:  %s, %d samples" % (b, tb) in summ,
        "diff summary: both recordings and totals", summ[:300])
table = summ.split("Functions whose self")[1].split("\n\n")[0]
rows = [l.split() for l in table.splitlines() if re.match(r"^\s+\d+\.\d+%", l)]
t.check(rows and rows[0][-1] == "cmp_ints" and rows[0][2] == "+%d" % (60 * 3 - 25),
        "diff summary: the function that changed most first, with its change", table)
spin_row = [r for r in rows if r[-1] == "spin.constprop.0"]
t.check(spin_row and spin_row[0][2] == "-%d" % (41 - 10) and spin_row[0][3:5] == ["41", "10"],
        "diff summary: a shrunk function with both counts", spin_row)
t.check("Functions whose total" in summ, "diff summary: by total too")
ns = t.treport("--diff", "--normalize", a, b).stdout
t.check("normalised" in ns, "diff summary: --normalize says so")

for args, why in ((["--diff", a], "one recording"), (["--diff", a, b, a], "three recordings"),
                  (["--diff", "--json", a, b], "--json"), (["--diff", "--perf-script", a, b], "--perf-script"),
                  (["--normalize", a], "--normalize without --diff")):
    r = t.treport(*args, check_rc=False)
    t.check(r.returncode == 2 and "treport:" in r.stderr, "diff: usage error for %s" % why, r.stderr)
t.finish()
