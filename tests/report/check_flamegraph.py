# treport --flamegraph on synthetic recordings: well-formed XML (xmllint),
# every frame's title "name (N samples, P%)", the call tree the frames'
# geometry draws equal to --folded's stacks, the total in the root, colours
# by frame kind, filters, hostile names escaped, the embedded script's
# syntax (node --check, when node is there), an empty profile.
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
total = sum(s[4] for s in sa)


def xmllint_ok(path):
    if not shutil.which("xmllint"):
        print("SKIP: xmllint not installed (apt-get install libxml2-utils)")
        return True
    r = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    if r.returncode:
        print(r.stderr[:2000])
    return r.returncode == 0


def frames(path):
    """[(name, count, depth, x, w, fill, title)] of the frames drawn."""
    root = ET.parse(path).getroot()
    g = next(e for e in root.iter(NS + "g") if e.get("id") == "frames")
    base, fh = int(g.get("data-base-y")), int(g.get("data-frame-height"))
    out = []
    for f in g.findall(NS + "g"):
        title = f.find(NS + "title").text
        rect = f.find(NS + "rect")
        name, _, rest = title.rpartition(" (")
        m = re.match(r"(\d+) samples, ([\d.]+)%", rest)
        out.append((name, int(m.group(1)), (base - int(float(rect.get("y")))) // fh,
                    int(f.get("data-x")), int(f.get("data-w")), rect.get("fill"), title))
    return out, g


def tree_paths(fr):
    """{"all;comm;...;frame": count} from the frames' depth and x ranges."""
    by_depth = {}
    for f in fr:
        by_depth.setdefault(f[2], []).append(f)
    paths = {}

    def path(f):
        if f[2] == 0:
            return f[0]
        parents = [p for p in by_depth.get(f[2] - 1, []) if p[3] <= f[3] and f[3] + f[4] <= p[3] + p[4]]
        return path(parents[0]) + ";" + f[0] if len(parents) == 1 else "?"

    for f in fr:
        paths[path(f)] = paths.get(path(f), 0) + f[1]
    return paths


def folded_nodes(folded):
    """Inclusive counts of every prefix of the folded stacks, under "all"."""
    nodes = {"all": 0}
    for stack, n in folded.items():
        nodes["all"] += n
        parts = stack.split(";")
        for i in range(1, len(parts) + 1):
            k = "all;" + ";".join(parts[:i])
            nodes[k] = nodes.get(k, 0) + n
    return nodes


svg = os.path.join(d, "a.svg")
t.treport(a, "--flamegraph", "-o", svg)
t.check(xmllint_ok(svg), "flamegraph: xmllint --noout accepts the SVG")
fr, g = frames(svg)
root = [f for f in fr if f[2] == 0]
t.check(len(root) == 1 and root[0][0] == "all" and root[0][1] == total and
        root[0][6] == "all (%d samples, 100.00%%)" % total,
        "flamegraph: the root's title holds the total (%d samples)" % total, root)
t.check(all(re.fullmatch(r".* \(\d+ samples, \d+\.\d\d%(; inlined)?\)", f[6]) for f in fr),
        "flamegraph: every frame's title is 'name (N samples, P%)'")
t.check(all(abs(float(re.search(r", ([\d.]+)%", f[6]).group(1)) - 100.0 * f[1] / total) < 0.006 for f in fr),
        "flamegraph: shares are count / total")
names = {f[0] for f in fr}
t.check({"main", "recurse", "spin.constprop.0", "cmp_ints", "sort_work", "do_syscall_64"} <= names,
        "flamegraph: holds the workload's functions and the kernel's", sorted(names))
folded = t.parse_folded(t.treport(a, "--folded").stdout)
fg_paths = tree_paths(fr)
t.check(fg_paths == folded_nodes(folded), "flamegraph: the frames draw --folded's call tree",
        "\n".join("%s %s" % kv for kv in sorted(set(fg_paths.items()) ^ set(folded_nodes(folded).items()))))
t.check(all(f[4] == f[1] for f in fr), "flamegraph: frame widths (data-w) are their counts")


def fills(pred):
    return {f[5] for f in fr if pred(f)}


def rgb(s):
    return tuple(int(x) for x in re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", s).groups())


user = fills(lambda f: f[0] in ("main", "recurse", "cmp_ints", "spin.constprop.0", "sort_work"))
kern = fills(lambda f: f[0] in ("do_syscall_64", "entry_SYSCALL_64"))
err = fills(lambda f: f[0].startswith("[error:"))
t.check(user and kern and err and not (user & kern) and not (user & err) and not (kern & err),
        "flamegraph: user, kernel and error frames have colours of their own", (user, kern, err))
t.check(all(rgb(c)[0] > rgb(c)[2] for c in user) and all(rgb(c)[2] > rgb(c)[0] for c in kern) and
        all(max(rgb(c)) - min(rgb(c)) < 20 for c in err),
        "flamegraph: user warm, kernel blue, errors grey")
legend = [e.text for e in ET.parse(svg).getroot().iter(NS + "text") if e.get("class") == "small"]
t.check({"user", "kernel", "error"} <= set(legend), "flamegraph: a legend of the kinds shown", legend)

# filters apply
svg_pid = os.path.join(d, "pid.svg")
t.treport(a, "--flamegraph", "--pid", "50", "-o", svg_pid)
fp, _ = frames(svg_pid)
t.check([f[1] for f in fp if f[2] == 0] == [sum(s[4] for s in sa if s[1] == 50)] and
        "main" not in {f[0] for f in fp}, "flamegraph: --pid filters")
svg_time = os.path.join(d, "time.svg")
t.treport(a, "--flamegraph", "--time", "0.5,1.0", "--user-only", "-o", svg_time)
ft, _ = frames(svg_time)
t.check([f[1] for f in ft if f[2] == 0] == [sum(s[4] for s in sa if 0.5 <= s[5] <= 1.0)] and
        "do_syscall_64" not in {f[0] for f in ft}, "flamegraph: --time and --user-only filter")
svg_tid = os.path.join(d, "tid.svg")
t.treport(a, "--flamegraph", "--folded-tid", "-o", svg_tid)
t.check({"busy-42/42", "busy-42/43", "my-prog-50/51"} <= {f[0] for f in frames(svg_tid)[0] if f[2] == 1},
        "flamegraph: --folded-tid names process frames comm-PID/TID")

# nothing kept: still a valid SVG
svg_none = os.path.join(d, "none.svg")
t.treport(a, "--flamegraph", "--pid", "12345", "-o", svg_none)
t.check(xmllint_ok(svg_none) and "no samples" in open(svg_none).read(), "flamegraph: an empty profile")

# hostile names
h = v.hostile_recording(d)
svg_h = os.path.join(d, "hostile.svg")
t.treport(h, "--flamegraph", "-o", svg_h)
t.check(xmllint_ok(svg_h), "flamegraph: hostile names: xmllint accepts the SVG")
try:
    hf, _ = frames(svg_h)
    hn = {f[0] for f in hf}
    want = {v.decode_like_treport(v.HOSTILE_COMM), v.decode_like_treport(v.HOSTILE_KSYM),
            "[" + v.decode_like_treport(v.HOSTILE_PATH.rsplit(b"/", 1)[1]) + "]"}
    t.check(want <= hn, "flamegraph: hostile names come back as written (invalid UTF-8 as U+FFFD)",
            (sorted(want - hn), sorted(hn)))
except ET.ParseError as e:
    t.check(False, "flamegraph: hostile names: Python's XML parser reads the SVG", e)

# the script: syntax, and no CDATA terminator inside
text = open(svg).read()
js = text[text.index("<script"):text.index("</script>")]
js = js[js.index("<![CDATA[") + 9:js.rindex("]]>")]
t.check("]]>" not in js and "fgInit" in js and 'onload="fgInit()"' in text,
        "flamegraph: script embedded in CDATA and run on load")
if shutil.which("node"):
    jsf = os.path.join(d, "fg.js")
    open(jsf, "w").write(js)
    r = t.run(["node", "--check", jsf])
    t.check(r.returncode == 0, "flamegraph: the embedded script parses (node --check)", r.stderr)
else:
    print("SKIP: node not installed: script syntax check")
t.check(not re.search(r"(src|href)=\"(https?:)?//", text), "flamegraph: self-contained (nothing fetched)")

t.finish()
