# Checks treport --perf-script output of tests/perl/chain.pl against the
# script. From the first sample whose stack reaches the script's <main>
# to the last sample with a frame of the script (before: trecord still
# syncing the new process; after: interpreter exit), every sample's Perl
# frames, root first, must follow the call chain the script makes: each
# frame at a line marked "@calls F->G" for the frame G after it, the
# innermost at one of its "@calls" or "@leaf" lines. Perl and native
# frames must interleave in their true order: <main> and the first
# descend (entered from C: perl_run, the sort comparator) right after a
# Perl_runops_standard frame, Perl_pp_sort between Worker::run and
# descend, every other Perl frame right after its caller's. Samples whose
# native unwinding ended at stack deltas or mappings not loaded yet are
# counted apart. Prints one PASS/FAIL line (min-fraction of the samples,
# and of the samples in main::leaf) and a few offending stacks.
#   usage: python3 check_stacks.py chain.pl perf-script-file min-fraction label
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perf_script import samples  # noqa: E402

script, path, min_frac, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
base = script.rsplit("/", 1)[-1]

calls = {}  # (func, line) -> callee
lines_of = {}  # func -> lines it may be innermost at
for no, line in enumerate(open(script), 1):
    m = re.search(r"# @calls (\S+)->(\S+)", line)
    if m:
        calls[(m.group(1), no)] = m.group(2)
        lines_of.setdefault(m.group(1), set()).add(no)
    m = re.search(r"# @leaf (\S+)", line)
    if m:
        lines_of.setdefault(m.group(1), set()).add(no)
depth = int(re.search(r"^our \$DEPTH = (\d+);", open(script).read(), re.M).group(1))
WANT = ["<main>", "main::top", "Worker::run"] + ["main::descend"] * (depth + 1) + ["main::leaf"]
PLFRAME = re.compile(r"^(<main>|[\w:]+) \((.+):(\d+)\)$")


def perl_frames(names):
    """Root-first [(func, file, line, index in root-first names)]."""
    parts = names[::-1]
    out = []
    for i, p in enumerate(parts):
        m = PLFRAME.match(p)
        if m:
            out.append((m.group(1), m.group(2), int(m.group(3)), i))
    return parts, out


def chain_ok(names):
    parts, frames = perl_frames(names)
    if not frames:
        return False, "no perl frames"
    funcs = [f[0] for f in frames]
    if funcs != WANT[: len(funcs)] or any(f[1] != base for f in frames):
        return False, "script frames out of order"
    for k, (func, _, line, i) in enumerate(frames):
        if k + 1 < len(frames):
            if calls.get((func, line)) != frames[k + 1][0]:
                return False, "%s at line %d does not call %s there" % (func, line, frames[k + 1][0])
        elif line not in lines_of.get(func, ()):
            return False, "innermost %s at line %d" % (func, line)
        prev = parts[i - 1] if i > 0 else ""
        from_c = func == "<main>" or (func == "main::descend" and funcs[k - 1] == "Worker::run")
        if from_c:
            if prev != "Perl_runops_standard":
                return False, "%s not right after Perl_runops_standard" % func
            if func == "main::descend" and "Perl_pp_sort" not in parts[frames[k - 1][3]:i]:
                return False, "no Perl_pp_sort between Worker::run and descend"
        elif k > 0 and i != frames[k - 1][3] + 1:
            return False, "native frame %s between %s and its caller" % (prev, func)
    return True, ""


stacks = sorted(samples(open(path)))
ours = [t for t, n in stacks if perl_frames(n)[1]]
rooted = [t for t, n in stacks if any(f[0] == "<main>" for f in perl_frames(n)[1])]
window = [(t, n) for t, n in stacks if rooted and ours and rooted[0] <= t <= ours[-1]]
if rooted:
    print("note: %d samples before the first complete stack (%.2f s after the first)"
          % (sum(1 for t, _ in stacks if t < rooted[0]), rooted[0] - stacks[0][0]))
NOT_LOADED = ("[error: NATIVE_NO_PAGE_INFO]", "[error: NATIVE_LOOKUP_TEXT_SECTION]")
total = good = not_loaded = leaf_total = leaf_good = 0
bad = []
for t, names in window:
    if names and names[-1] in NOT_LOADED:
        not_loaded += 1
        continue
    total += 1
    # A leaf sample: the sampled pc runs main::leaf's loop (its frame is
    # the innermost Perl one), or its unwinding broke before showing it.
    funcs = [f[0] for f in perl_frames(names)[1]]
    is_leaf = not funcs or funcs[-1] == "main::leaf" or funcs[0] != "<main>"
    ok, why = chain_ok(names)
    leaf_total += is_leaf
    leaf_good += is_leaf and ok and len(funcs) == len(WANT)
    if ok:
        good += 1
    elif len(bad) < 5:
        bad.append("%s: %s" % (why, ";".join(names[::-1][-12:])))

print("note: %d samples in the window ended at native data not loaded yet" % not_loaded)
frac = good / total if total else 0
leaf_frac = leaf_good / leaf_total if leaf_total else 0
verdict = frac >= min_frac and leaf_frac >= min_frac and total >= 100
print("%s: %d samples, %d (%.1f%%) with the perl chain in order under <main>; "
      "%d in main::leaf, %d (%.1f%%) with the whole chain root to leaf [%s]"
      % ("PASS" if verdict else "FAIL", total, good, 100 * frac, leaf_total, leaf_good,
         100 * leaf_frac, label))
for b in bad:
    print("  " + b)
