# scripts/callers.py: the callers of a function with their shares, on a
# synthetic recording (counts known exactly, and recomputed from --folded
# independently) and, when trecord can record here, on a real one.
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "report"))
import trlib as t  # noqa: E402
import views_spec as v  # noqa: E402

SCRIPT = os.path.join(t.ROOT, "scripts", "callers.py")
ENV = dict(os.environ, TREPORT=t.TREPORT)


def callers(*args):
    r = subprocess.run([sys.executable, SCRIPT] + [str(a) for a in args], capture_output=True, text=True, env=ENV)
    rows = []
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*(\d+\.\d\d)% +(\d+)  ( *)(.*)$", line)
        if m:
            rows.append((float(m.group(1)), int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    return r, rows


def folded_callers(folded, func):
    """{immediate caller: samples} of func's outermost call, from --folded."""
    out = {}
    for stack, n in folded.items():
        frames = stack.split(";")[1:]  # root first, without the comm
        if func in frames:
            i = frames.index(func)
            c = frames[i - 1] if i > 0 else "[no caller: the stack's outermost frame]"
            out[c] = out.get(c, 0) + n
    return out


def folded_tree(folded, func, depth):
    """[(samples, level, caller)] in the script's order, from --folded."""
    tree = {}
    for stack, n in folded.items():
        frames = stack.split(";")[1:]
        if func not in frames:
            continue
        chain = list(reversed(frames[:frames.index(func)]))[:depth] or ["[no caller: the stack's outermost frame]"]
        node = tree
        for c in chain:
            e = node.setdefault(c, [0, {}])
            e[0] += n
            node = e[1]
    out = []

    def walk(node, level):
        for name, (n, kids) in sorted(node.items(), key=lambda kv: (-kv[1][0], kv[0])):
            out.append((n, level, name))
            walk(kids, level + 1)
    walk(tree, 0)
    return out


d = t.tmpdir()
a, b, sa, sb = v.busy_recordings(d)
folded = t.parse_folded(t.treport(a, "--folded").stdout)
total = sum(s[4] for s in sa)

r, rows = callers(a, "cmp_ints")
t.check(r.returncode == 0 and "on the stack in 25 of %d samples (%.2f%%), the leaf in 25" % (total, 2500.0 / total)
        in r.stdout, "callers: header counts FUNC's samples on the stack and as the leaf", r.stdout + r.stderr)
t.check(rows and rows[0][:3] == (100.0, 25, 0) and rows[0][3] == "sort_work" and
        [(n, lv, name) for _, n, lv, name in rows] == folded_tree(folded, "cmp_ints", 4),
        "callers: cmp_ints <- sort_work <- ... <- main, the chains of --folded", (rows, folded_tree(folded, "cmp_ints", 4)))

r, rows = callers(a, "recurse", "--depth", "1")
fc = folded_callers(folded, "recurse")
got = {name: n for share, n, depth, name in rows if depth == 0}
t.check(got == fc and sum(got.values()) == 41 and "recurse" not in got,
        "callers: recursion counts its outermost call; callers equal --folded's", (got, fc))
t.check(all(depth == 0 for _, _, depth, _ in rows), "callers: --depth 1 shows the immediate callers only")
t.check(abs(sum(s for s, _, d_, _ in rows if d_ == 0) - 100.0) < 0.02, "callers: shares of FUNC's samples sum to 100%")

r, rows = callers(a, "main")
t.check(rows and rows[0][3].startswith("[no caller") and rows[0][1] == sum(s[4] for s in sa if s[0] != "err"),
        "callers: a root function has no caller", rows)
r, rows = callers(a, "do_syscall", "--regex")
t.check(rows and rows[0][3] == "entry_SYSCALL_64" and rows[-1][3] == "main" and rows[0][1] == 20,
        "callers: --regex, from kernel into user frames", rows)
r, rows = callers(a, "spin.constprop.0", "--pid", "50")
t.check(rows and rows[0][1] == 1 and "of 1 samples" in r.stdout, "callers: filters passed to treport", r.stdout)
r, rows = callers(a, "sort_wor")
t.check(r.returncode == 1 and "similar names: sort_work" in r.stderr, "callers: an unknown name suggests similar ones", r.stderr)
r, rows = callers(a, "x", "--depth", "0")
t.check(r.returncode == 2, "callers: bad --depth is a usage error")
r, rows = callers(os.path.join(d, "missing.tr"), "main")
t.check(r.returncode == 1 and "treport" in r.stderr and "Traceback" not in r.stderr,
        "callers: treport's error reported, no traceback", r.stderr)

# a real recording
tr = os.path.join(d, "pipeline.tr")
rec = subprocess.run([os.environ.get("TRECORD", os.path.join(t.BUILD, "trecord")), "-q", "-f", "-F", "499", "-o", tr,
                      "--", os.path.join(t.WORKLOADS, "pipeline"), "1"], capture_output=True, text=True)
if rec.returncode == 0:
    r, rows = callers(tr, "hash_block", "--depth", "1")
    top = rows[0] if rows else None
    t.check(top and top[3] == "run_worker" and top[0] > 90, "callers: real recording: hash_block <- run_worker", r.stdout)
else:
    print("SKIP: trecord cannot record here: " + rec.stderr.strip()[:200])
t.finish()
