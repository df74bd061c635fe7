# Checks treport --perf-script output of tests/ruby/busy.rb against the
# script. From the first sample with a frame of the script to the last one
# (before: trecord still syncing the new process; after: interpreter
# exit), every sample must show the script's whole chain, root first:
# <main>, main, run, block in run, DEPTH+1 x recurse, leaf; each frame at
# a line marked "@calls F->G" for the frame G after it, the innermost at
# one of its "@leaf" lines; the frames a C-level rb_vm_exec runs first
# (<main>, block in run) right after that rb_vm_exec frame; and native
# frames (Array#sort_by's C code) between run and block in run. Samples
# whose native unwinding ended at stack deltas not loaded yet are counted
# apart (not Ruby's doing). Prints PASS/FAIL lines and a few offenders.
#   usage: python3 check_stacks.py busy.rb perf-script-file min-fraction label
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perf_script import samples  # noqa: E402

script, path, min_frac, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
base = script.rsplit("/", 1)[-1]

calls, leaves = {}, {}
for no, line in enumerate(open(script), 1):
    m = re.search(r"# @calls (.+)->(.+?)\s*$", line)
    if m:
        calls[(m.group(1), no)] = m.group(2)
    m = re.search(r"# @leaf (.+?)\s*$", line)
    if m:
        leaves.setdefault(m.group(1), set()).add(no)
depth = int(re.search(r"^DEPTH = (\d+)", open(script).read(), re.M).group(1))
WANT = ["<main>", "main", "run", "block in run"] + ["recurse"] * (depth + 1) + ["leaf"]
FRAME = re.compile(r"^(.+) \((.+):(\d+|\?)\)$")


def chain_ok(names):
    """names: frame names root first."""
    ours = []  # (index, func, line)
    for i, n in enumerate(names):
        m = FRAME.match(n)
        if m and m.group(2) == base:
            ours.append((i, m.group(1), int(m.group(3)) if m.group(3) != "?" else -1))
    funcs = [o[1] for o in ours]
    if funcs != WANT:
        return False, "script frames %s" % (" ".join(funcs[:6]) + (" ..." if len(funcs) > 6 else ""))
    for k, (i, func, line) in enumerate(ours):
        if k + 1 < len(ours):
            if calls.get((func, line)) != ours[k + 1][1]:
                return False, "%s at line %d does not call %s there" % (func, line, ours[k + 1][1])
        elif line not in leaves.get(func, ()):
            return False, "innermost %s at line %d" % (func, line)
        if func in ("<main>", "block in run") and (i == 0 or names[i - 1] != "rb_vm_exec"):
            return False, "%s not right after rb_vm_exec" % func
    run_i, block_i = ours[2][0], ours[3][0]
    if block_i - run_i < 2:
        return False, "no native frames between run and block in run"
    return True, ""


all_samples = list(samples(open(path), inlined=True, no_time=0.0))
has_ours = [i for i, (_, n) in enumerate(all_samples) if any("(%s:" % base in x for x in n)]
if not has_ours:
    print("FAIL: %s: no sample names a frame of %s" % (label, base))
    sys.exit(0)
window = all_samples[has_ours[0]: has_ours[-1] + 1]
good, native_missing, bad = 0, 0, []
for t, names in window:
    if any("NATIVE_NO_PAGE_INFO" in n for n in names):
        native_missing += 1
        continue
    ok, why = chain_ok(list(reversed(names)))
    if ok:
        good += 1
    else:
        bad.append((why, names))
total = len(window) - native_missing
frac = good / total if total else 0.0
verdict = "PASS" if total >= 50 and frac >= min_frac else "FAIL"
print("%s: %s: %d of %d samples (%.1f%%) show the whole chain <main> -> main -> run -> "
      "[sort_by] -> block in run -> %d x recurse -> leaf with the script's lines "
      "(%d more ended at deltas not loaded yet)" % (verdict, label, good, total, 100 * frac,
                                                    depth + 1, native_missing))
for why, names in bad[:3]:
    print("  %s: %s" % (why, ";".join(reversed(names))[:600]))
