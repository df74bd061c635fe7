# Checks treport --perf-script output of tests/php/chain.php against the
# script. In the window from the first sample whose stack reaches the
# script's {main} to the last sample with a frame of the script (before:
# trecord still syncing the new process; after: interpreter exit), the
# leaf samples must carry the whole chain, root first:
#   {main} -> top -> Walker::run -> usort -> Walker::{closure}
#          -> recurse x (DEPTH + 1) -> leaf
# each frame at a line marked "@calls F->G" for the frame G after it, the
# innermost at a "@leaf" line; the frames entered from C ({main}, the
# closure usort calls) right after a native execute_ex frame, and native
# frames (usort's C code) between usort and the closure. Samples whose
# native unwinding ended at stack deltas or mappings not loaded yet, and
# samples outside the leaf with a correct part of the chain, are counted
# apart; every other sample counts as a failed leaf sample. Prints one PASS/FAIL line and a few offending stacks.
#   usage: python3 check_stacks.py chain.php perf-script-file min-fraction label
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perf_script import samples  # noqa: E402

script, path, min_frac, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
base = script.rsplit("/", 1)[-1]

calls = {}  # (func, line) -> callee
leaves = set()  # lines leaf may be innermost at
for no, line in enumerate(open(script), 1):
    m = re.search(r"// @calls (\S+)->(\S+)", line)
    if m:
        calls[(m.group(1), no)] = m.group(2)
    if "// @leaf leaf" in line:
        leaves.add(no)
depth = int(re.search(r"^const DEPTH = (\d+);", open(script).read(), re.M).group(1))
WANT = ["{main}", "top", "Walker::run", "usort", "Walker::{closure}"] + ["recurse"] * (depth + 1) + ["leaf"]
PHPFRAME = re.compile(r"^(.+) \((.+?)(?::(\d+))?\)$")


def script_frames(names):
    """Root-first [(func, line, index in root-first names)] of the script and usort."""
    parts = names[::-1]
    out = []
    for i, p in enumerate(parts):
        m = PHPFRAME.match(p)
        if m and (m.group(2) == base or m.group(2) == "[internal]"):
            out.append((m.group(1), int(m.group(3) or -1), i))
    return out


def chain_ok(names):
    """(verdict, why): "full" the whole chain, "partial" a correct part of
    it from {main} (a sample outside the leaf: in the recursion, or in
    usort's C code), "bad" anything else."""
    parts = names[::-1]
    frames = script_frames(names)
    got = [f[0] for f in frames]
    if not got or got != WANT[: len(got)]:
        return "bad", "chain %s" % ">".join(got[:6] + ["..."] + got[-3:])
    full = len(got) == len(WANT)
    for k, (func, line, _) in enumerate(frames):
        if func == "usort":
            continue
        if k + 1 < len(frames):
            if calls.get((func, line)) != frames[k + 1][0]:
                return "bad", "%s at line %d does not call %s there" % (func, line, frames[k + 1][0])
        elif full and line not in leaves:
            return "bad", "innermost leaf at line %d" % line
    for func, _, i in frames:
        if func in ("{main}", "Walker::{closure}") and (i == 0 or parts[i - 1] != "execute_ex"):
            return "bad", "%s not right after execute_ex" % func
    if len(frames) > 4 and frames[4][2] - frames[3][2] < 2:
        return "bad", "no native frames between usort and the closure"
    return ("full" if full else "partial"), ""


stacks = sorted(samples(open(path)))
has_script = [t for t, n in stacks if any(PHPFRAME.match(p) and base in p for p in n)]
rooted = [t for t, n in stacks if any(f[0] == "{main}" for f in script_frames(n))]
window = [(t, n) for t, n in stacks if rooted and has_script and rooted[0] <= t <= has_script[-1]]
NOT_LOADED = ("[error: NATIVE_NO_PAGE_INFO]", "[error: NATIVE_LOOKUP_TEXT_SECTION]")
good = partial = not_loaded = failed = 0
bad = []
for t, names in window:
    if names and names[-1] in NOT_LOADED:
        not_loaded += 1
        continue
    verdict, why = chain_ok(names)
    if verdict == "full":
        good += 1
    elif verdict == "partial":
        partial += 1
    else:
        failed += 1
        if len(bad) < 5:
            bad.append("%s: %s" % (why, ";".join(names[::-1][-12:])))
print("note: %d samples in the window ended at native data not loaded yet, %d outside the leaf "
      "with a correct part of the chain" % (not_loaded, partial))
# Leaf samples: the ones with the whole chain, and every sample whose
# stack is wrong (it could have been a leaf sample).
total = good + failed
frac = good / total if total else 0
print("%s: %d leaf samples, %d (%.1f%%) with the whole chain {main} -> leaf, in order, at the script's lines [%s]"
      % ("PASS" if frac >= min_frac and good >= 100 else "FAIL", total, good, 100 * frac, label))
for b in bad:
    print("  " + b)
