# Checks treport --perf-script output of tests/python/busy.py against the
# script. From the first sample whose stack reaches the script's <module>
# to the last sample with a frame of the script (before: trecord still
# syncing the new process and loading stack deltas, which takes a second
# or two with a sanitizer build; after: interpreter exit), every sample's
# Python frames, root first, must follow the call
# chain the script makes: each frame at a line marked "@calls F->G" for
# the frame G that follows it, the innermost at one of its "@leaf" or
# "@calls" lines (or its "@starts" line: a frame not started yet); and the
# frames entered from C (<module>, a running gen) right after a native
# _PyEval_EvalFrameDefault frame. Samples whose native unwinding ended at
# stack deltas or mappings not loaded yet are counted apart (not Python's
# doing). Prints one PASS/FAIL line and a few offending stacks.
# DEPTH is the script's recursion depth argument when it was given one;
# "co_name" says frames are named by their bare code name (CPython before
# 3.11 has no qualified name on code objects: Worker.run shows as run).
#   usage: python3 check_stacks.py busy.py perf-script-file min-fraction label [DEPTH [co_name]]
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perf_script import samples  # noqa: E402

script, path, min_frac, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
base = script.rsplit("/", 1)[-1]
bare = len(sys.argv) > 6 and sys.argv[6] == "co_name"


def named(qualname):
    return qualname.rsplit(".", 1)[-1] if bare else qualname

calls = {}  # (func, line) -> callee
leaves = {}  # func -> lines it may be innermost at
starts = {}  # func -> its first line (a frame not started yet)
for no, line in enumerate(open(script), 1):
    m = re.search(r"# @calls (\S+)->(\S+)", line)
    if m:
        calls[(named(m.group(1)), no)] = named(m.group(2))
        leaves.setdefault(named(m.group(1)), set()).add(no)
    m = re.search(r"# @leaf (\S+)", line)
    if m:
        leaves.setdefault(named(m.group(1)), set()).add(no)
    m = re.search(r"# @starts (\S+)", line)
    if m:
        leaves.setdefault(named(m.group(1)), set()).add(no)
        starts[named(m.group(1))] = no
depth = int(re.search(r"^DEPTH = (\d+)", open(script).read(), re.M).group(1))
if len(sys.argv) > 5:
    depth = int(sys.argv[5])

PYFRAME = re.compile(r"^(.+) \((.+):(\d+|\?)\)$")


def chain_ok(frames):
    """frames: [(func, file, line, preceded_by_eval)] root first."""
    ours = [f for f in frames if f[1] == base]
    want = ["<module>", named("Worker.run")] + ["recurse"] * (depth + 1) + ["gen", "leaf"]
    names = [f[0] for f in ours]
    if not names or names != want[: len(names)]:
        return False, "script frames out of order"
    for i, (func, _, line, _) in enumerate(frames):
        if i >= len(ours):
            break  # the library's own frames: lines not checked
        if i + 1 < len(frames):
            nxt = frames[i + 1][0] if frames[i + 1][1] == base else "lib"
            if calls.get((func, line)) != nxt:
                return False, "%s at line %d does not call %s there" % (func, line, nxt)
        elif line not in leaves.get(func, ()):
            return False, "innermost %s at line %d" % (func, line)
    # <module> and a running gen are entered from C: a native eval frame
    # precedes them (a generator being created is a plain Python call)
    # (before 3.11, co_name mode: every frame is run by a C-level call)
    for f in ours:
        if (bare or f[0] in ("<module>", "gen")) and f[2] != starts.get(f[0]) and not f[3]:
            return False, "%s not preceded by _PyEval_EvalFrameDefault" % f[0]
    return True, ""




def frames_of(names):
    """Root-first Python frames (func, file, line, after_eval)."""
    parts = names[::-1]
    out = []
    for i, p in enumerate(parts):
        m = PYFRAME.match(p)
        if m:
            line = int(m.group(3)) if m.group(3) != "?" else -1
            out.append((m.group(1), m.group(2), line, i > 0 and parts[i - 1] == "_PyEval_EvalFrameDefault"))
    return out


stacks = sorted(samples(open(path)))
ours = [t for t, names in stacks if any(f[1] == base for f in frames_of(names))]
rooted = [t for t, names in stacks if any(f[:2] == ("<module>", base) for f in frames_of(names))]
window = [(t, n) for t, n in stacks if rooted and ours and rooted[0] <= t <= ours[-1]]
if rooted:
    print("note: %d samples before the first complete stack (%.2f s after the first)"
          % (sum(1 for t, _ in stacks if t < rooted[0]), rooted[0] - stacks[0][0]))
# Native data not loaded yet: trecord loads stack deltas in the background
# and a new mapping is synced on its first unknown pc; those samples say
# nothing about Python unwinding and are counted apart.
NOT_LOADED = ("[error: NATIVE_NO_PAGE_INFO]", "[error: NATIVE_LOOKUP_TEXT_SECTION]")
total = good = not_loaded = 0
bad = []
for t, names in window:
    frames = frames_of(names)
    if names and names[-1] in NOT_LOADED:
        not_loaded += 1
        continue
    total += 1
    ok, why = chain_ok(frames) if frames else (False, "no python frames")
    if ok:
        good += 1
    elif len(bad) < 5:
        bad.append("%s: %s" % (why, ";".join(names[::-1][-14:])))

print("note: %d samples in the window ended at native data not loaded yet" % not_loaded)
frac = good / total if total else 0
print("%s: %d samples, %d (%.1f%%) with the full python chain in order under <module> [%s]"
      % ("PASS" if frac >= min_frac and total >= 100 else "FAIL", total, good, 100 * frac, label))
for b in bad:
    print("  " + b)
