#!/usr/bin/env python3
"""Whole-chain share of a hot leaf's samples, from `perf script` text
(perf's own or treport --perf-script; parsed by tests/bench/stacks.py).

Of the samples whose leaf frame matches --leaf, the share whose stack holds
every --caller, in order (innermost first, other frames may lie between),
and below the last of them a frame matching --root. Also the share of all
samples that are leaf samples, so a profiler that cannot name the leaf
(and so has no leaf samples to fail) does not look good.

The leaf frame is the first user (non-kernel) frame, or with --leaf-from
the first frame whose name or dso matches it (Python: the innermost Python
frame, under the interpreter's own C frames).

Names are matched as perf and treport print them and in a cleaned form:
  JS:*hotLeaf /x/hot.js:3:19, LazyCompile:~hotLeaf ...  -> hotLeaf
  long Hot.hotLeaf(long), LHot;::hotLeaf                -> Hot.hotLeaf
  py::hotLeaf:/x/hot_perf.py, hotLeaf (hot_perf.py:16)  -> hotLeaf
A pattern that is a plain name (letters, digits, _ $ . :) must match a
whole name component: "hotLeaf" matches main.hotLeaf and Hot::hotLeaf but
not hotLeafX. Other patterns are Python regexes searched in either form.

  chain_share.py --preset node|java|go|python FILE
  chain_share.py --leaf hotLeaf --caller hotMiddle --caller hotOuter \\
      --root '^node::Start$' FILE
Prints a one-line summary, then one line of JSON (--json: the JSON only).

With --oracle PERF_TEXT (perf -g of the same run) it also checks FILE
against it and prints PASS:/FAIL: lines (tests/run.sh counts them):
FILE names the leaf in at least 90% as many samples as the oracle, its
whole-chain share is >= --min-share, and >= the oracle's less --slack or
two standard errors of the difference of the shares, whichever is larger.
"""

import argparse
import collections
import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import stacks  # noqa: E402

# The test workloads of this directory: (leaf, callers innermost first,
# root, leaf-from). Every hot* function is a real frame in each runtime.
CALLERS = ["hotMiddle", "hotOuter", "hotMain"]
PRESETS = {
    "node": ("hotLeaf", CALLERS, r"^node::Start$", None),
    "java": ("hotLeaf", CALLERS, r"^JavaMain$", None),
    # main goroutine: runtime.main; the worker goroutine: runtime.goexit.
    "go": (r"^main\.hotLeaf$", [r"^main\.hotMiddle$", r"^main\.hotOuter$", r"^main\.hotMain$"],
           r"^runtime\.(main|goexit)(\.abi0)?$", None),
    # perf names -X perf trampolines py::NAME:FILE; treport's Python frames
    # have the script as their dso.
    "python": ("hotLeaf", CALLERS, r"^Py_RunMain$", r"^py::|\.py$"),
}

NODE_RE = re.compile(r"^(?:JS|LazyCompile|Function|InterpretedFunction|Script|Eval|"
                     r"Builtin|BytecodeHandler|Handler|Stub|RegExp):[*~^+]?(\S*)")
JAVA_SIG_RE = re.compile(r"^(?:[\w$.\[\]<>]+\s+)?([\w$.<>]+)\(.*\)$")  # long Hot.f(long)
JAVA_SLASH_RE = re.compile(r"^L([\w$/]+);::([\w$<>]+)")               # LHot;::f
PY_PERF_RE = re.compile(r"^py::([^:]+):")                            # py::f:/x.py
PY_TREC_RE = re.compile(r"^(\S+) \([^()]*\.py:\d+\)$")               # f (x.py:16)
PLAIN_RE = re.compile(r"^[\w$.:]+$")


def clean_name(sym):
    """The bare function name of a frame in the runtimes' perf forms."""
    m = NODE_RE.match(sym)
    if m:
        return m.group(1) or "(anonymous)"
    m = PY_PERF_RE.match(sym) or PY_TREC_RE.match(sym)
    if m:
        return m.group(1)
    m = JAVA_SLASH_RE.match(sym)
    if m:
        return m.group(1).replace("/", ".") + "." + m.group(2)
    m = JAVA_SIG_RE.match(sym)
    if m and "::" not in sym:
        return m.group(1)
    return sym


def compile_pattern(p):
    if PLAIN_RE.match(p):
        return re.compile(r"(?<![\w$])" + re.escape(p) + r"(?![\w$])")
    return re.compile(p)


class Matcher:
    def __init__(self, pattern):
        self.pattern = pattern
        self.rx = compile_pattern(pattern)

    def __call__(self, frame):
        sym, clean = frame[0], frame[2]
        return bool(self.rx.search(clean) or self.rx.search(sym))


def prepare(frames):
    """(sym, dso, clean) per frame, leaf first."""
    return [(sym, dso, clean_name(sym)) for sym, dso in frames]


def leaf_index(frames, leaf_from):
    for i, (sym, dso, _) in enumerate(frames):
        if stacks.is_kernel_dso(dso):
            continue
        if leaf_from is None or leaf_from.search(sym) or leaf_from.search(dso):
            return i
        if sym.startswith("[error:"):
            return None
    return None


def chain_break(frames, start, callers, root):
    """None if callers (in order) and then root are found in frames[start:];
    else the pattern of the first one missing."""
    i = start
    for m in callers + [root]:
        while i < len(frames) and not m(frames[i]):
            i += 1
        if i == len(frames):
            return m.pattern
        i += 1
    return None


def folded(frames, start):
    """Root-first folded text of the user part of a stack, cleaned names."""
    names = [c for s, d, c in frames[start:] if not stacks.is_kernel_dso(d)]
    return ";".join(reversed(names))


TIME_RE = re.compile(r"\s(\d+\.\d+):\s")


def measure(lines, leaf, callers, root, leaf_from=None, show=0, comm=None, skip_secs=0.0):
    """The counts and shares for one perf-script text (an iterable of lines).
    comm: a regex the sample's header line must match from its start;
    skip_secs: leave out samples this long after the first one (warm-up)."""
    leaf_m, root_m = Matcher(leaf), Matcher(root)
    caller_ms = [Matcher(c) for c in callers]
    lf = re.compile(leaf_from) if leaf_from else None
    total = user = nleaf = whole = 0
    breaks = collections.Counter()
    shapes = {True: collections.Counter(), False: collections.Counter()}
    comm_rx = re.compile(comm) if comm else None
    t0 = None
    skipped = 0
    for header, raw in stacks.parse_samples_headers(lines):
        if comm_rx and not comm_rx.match(header):
            continue
        if skip_secs:
            m = TIME_RE.search(header)
            t = float(m.group(1)) if m else 0.0
            t0 = t if t0 is None else t0
            if t - t0 < skip_secs:
                skipped += 1
                continue
        frames = prepare(raw)
        total += 1
        if stacks.leaf_dso(raw) is not None:
            user += 1
        i = leaf_index(frames, lf)
        if i is None or not leaf_m(frames[i]):
            continue
        nleaf += 1
        missing = chain_break(frames, i + 1, caller_ms, root_m)
        if missing is None:
            whole += 1
        else:
            breaks[missing] += 1
        if show:
            shapes[missing is None][folded(frames, i)] += 1
    res = {
        "samples": total, "user_samples": user, "leaf_samples": nleaf,
        "leaf_share": nleaf / total if total else 0.0,
        "chain_samples": whole,
        # No leaf sample at all is a failure, not an undefined share.
        "chain_share": whole / nleaf if nleaf else 0.0,
        "first_missing": dict(breaks.most_common()),
        "leaf": leaf, "callers": list(callers), "root": root, "leaf_from": leaf_from,
        "skip_secs": skip_secs, "skipped": skipped,
    }
    if show:
        res["top_broken"] = [[s, n] for s, n in shapes[False].most_common(show)]
        res["top_whole"] = [[s, n] for s, n in shapes[True].most_common(show)]
    return res


def summary(name, r):
    s = "%s: %d samples, %d in leaf /%s/ (%.1f%%), %d with the whole chain (%.1f%%)" % (
        name, r["samples"], r["leaf_samples"], r["leaf"], 100 * r["leaf_share"],
        r["chain_samples"], 100 * r["chain_share"])
    if r["first_missing"]:
        s += "; first missing: " + ", ".join(
            "/%s/ %d" % (p, n) for p, n in r["first_missing"].items())
    return s


def check(label, r, o, min_share, slack):
    """PASS:/FAIL: lines comparing r (trec) with o (perf -g); True if all pass."""
    def line(ok, text):
        print("%s: %s: %s" % ("PASS" if ok else "FAIL", label, text))
        return ok
    ok = line(r["leaf_samples"] * 10 >= o["leaf_samples"] * 9,
              "samples in the leaf named (%d, perf -g %d)" % (r["leaf_samples"], o["leaf_samples"]))
    # perf -g walks these stacks too (it reached at least half): when it
    # falls short of the bar in the same run, the machine was too loaded
    # for JIT warm-up to end within the skipped start, and the bar is
    # perf's share instead. Where perf -g cannot walk them (0%: no frame
    # pointers, no names), the bar stays.
    # The two are different samples of one run: allow for sampling noise,
    # two standard errors of the difference of the shares (near 100% it
    # vanishes and --slack remains).
    se = 0.0
    for x in (r, o):
        if x["leaf_samples"]:
            se += x["chain_share"] * (1 - x["chain_share"]) / x["leaf_samples"]
    slack = max(slack, 2 * se ** 0.5)
    bar = min_share
    if 0.5 <= o["chain_share"] < min_share:
        bar = o["chain_share"] - slack
        print("NOTE: %s: perf -g reached only %.1f%% in this run (loaded machine): "
              "the bar is its share" % (label, 100 * o["chain_share"]))
    ok &= line(r["leaf_samples"] > 0 and r["chain_share"] >= bar,
               "whole chain in >= %.1f%% of leaf samples (%.1f%%, %d of %d)" % (
                   100 * bar, 100 * r["chain_share"], r["chain_samples"], r["leaf_samples"]))
    ok &= line(r["leaf_samples"] > 0 and r["chain_share"] >= o["chain_share"] - slack,
               "whole-chain share not below perf -g's (%.1f%% vs %.1f%%, noise %.1f%%)" % (
                   100 * r["chain_share"], 100 * o["chain_share"], 100 * slack))
    return ok


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="perf script text, - for stdin")
    ap.add_argument("--preset", choices=sorted(PRESETS))
    ap.add_argument("--leaf", help="the hot leaf function")
    ap.add_argument("--caller", action="append", default=None,
                    help="a caller, innermost first (repeat)")
    ap.add_argument("--root", help="the bottom of the chain (runtime's main)")
    ap.add_argument("--leaf-from", help="leaf = first frame whose name or dso matches this")
    ap.add_argument("--show", type=int, default=0,
                    help="also list the N commonest stacks, broken and whole")
    ap.add_argument("--json", action="store_true", help="print the JSON line only")
    ap.add_argument("--comm", help="only samples whose header (comm first) matches this")
    ap.add_argument("--skip-secs", type=float, default=0.0,
                    help="leave out the samples of the first SECS (JIT warm-up)")
    ap.add_argument("--label", help="name in the summary line (default: the file)")
    ap.add_argument("--oracle", help="perf -g text of the same run: check FILE against it")
    ap.add_argument("--min-share", type=float, default=0.98)
    ap.add_argument("--slack", type=float, default=0.005,
                    help="sampling noise allowed below the oracle's share (0.005)")
    a = ap.parse_args()
    leaf, callers, root, leaf_from = PRESETS.get(a.preset, (None, [], None, None))
    leaf = a.leaf or leaf
    callers = a.caller if a.caller is not None else callers
    root = a.root or root
    leaf_from = a.leaf_from or leaf_from
    if not leaf or not root:
        ap.error("give --preset, or --leaf and --root")
    r = measure_file(a.file, leaf, callers, root, leaf_from, a.show, a.comm, a.skip_secs)
    o = measure_file(a.oracle, leaf, callers, root, leaf_from, a.show, a.comm, a.skip_secs) \
        if a.oracle else None
    if not a.json:
        label = a.label or a.file
        for name, res in ((label, r), ("%s (perf -g)" % label, o)):
            if res is None:
                continue
            print(summary(name, res))
            for key in ("top_broken", "top_whole"):
                for st, n in res.get(key, []):
                    print("  %s %6d  %s" % (key[4:], n, st))
    ok = True
    if o is not None:
        ok = check(a.label or a.file, r, o, a.min_share, a.slack)
        r = {"trec": r, "oracle": o}
    print(json.dumps(r, sort_keys=True))
    return 0 if ok else 1


def measure_file(path, *args):
    fh = sys.stdin if path == "-" else open(path, errors="replace")
    with fh:
        r = measure(fh, *args)
    r["file"] = path
    return r


if __name__ == "__main__":
    sys.exit(main())
