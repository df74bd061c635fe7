#!/usr/bin/env python3
"""Callers of one function in a trec recording, like perf report's caller
view for one symbol: how many samples have FUNC on the stack, and who
called it, as a tree of caller chains from FUNC outwards with each chain's
share of FUNC's samples. In a recursion the outermost call of FUNC counts,
so its callers are not FUNC itself.

    scripts/callers.py rec.tr cmp_ints [--depth 4] [--min 1] [--pid PID] ...
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trec_samples  # noqa: E402

NO_CALLER = "[no caller: the stack's outermost frame]"


class Node:
    __slots__ = ("count", "kids")

    def __init__(self):
        self.count = 0
        self.kids = {}


def collect(args):
    match = re.compile(args.func).search if args.regex else (lambda name: name == args.func)
    tree, total, on_stack, leaf, names = Node(), 0, 0, 0, set()
    for s in trec_samples.samples(args.recording, *trec_samples.filter_args(args), treport=args.treport):
        w, frames = s["weight"], s["frames"]
        total += w
        hits = [i for i, f in enumerate(frames) if match(f["name"])]
        if not hits:
            continue
        on_stack += w
        if hits[0] == 0:
            leaf += w
        outer = hits[-1]
        names.add(frames[outer]["name"])
        chain = [f["name"] for f in frames[outer + 1:outer + 1 + args.depth]] or [NO_CALLER]
        node = tree
        node.count += w
        for name in chain:
            node = node.kids.setdefault(name, Node())
            node.count += w
    return tree, total, on_stack, leaf, names


def similar(args):
    """Frame names containing FUNC, for a helpful error."""
    seen = {}
    for s in trec_samples.samples(args.recording, *trec_samples.filter_args(args), treport=args.treport):
        for f in s["frames"]:
            if args.func.lower() in f["name"].lower():
                seen[f["name"]] = seen.get(f["name"], 0) + s["weight"]
    return sorted(seen, key=lambda n: -seen[n])[:8]


def show(node, base, min_share, indent, out):
    kids = sorted(node.kids.items(), key=lambda kv: (-kv[1].count, kv[0]))
    hidden = 0
    for name, kid in kids:
        share = 100.0 * kid.count / base
        if share < min_share:
            hidden += kid.count
            continue
        out.append("%7.2f%% %8d  %s%s" % (share, kid.count, "  " * indent, name))
        show(kid, base, min_share, indent + 1, out)
    if hidden:
        out.append("%7.2f%% %8d  %s(others under %g%%)" % (100.0 * hidden / base, hidden, "  " * indent, min_share))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recording", help="a trec recording")
    p.add_argument("func", metavar="FUNC", help="the function, as --folded names it (e.g. cmp_ints)")
    p.add_argument("--regex", action="store_true", help="FUNC is a regular expression")
    p.add_argument("--depth", type=int, default=4, help="levels of callers shown (default 4)")
    p.add_argument("--min", type=float, default=1.0, metavar="PCT",
                   help="hide chains under PCT%% of FUNC's samples (default 1)")
    trec_samples.add_filter_args(p)
    args = p.parse_args()
    if args.depth < 1:
        p.error("--depth must be at least 1")
    try:
        tree, total, on_stack, leaf, names = collect(args)
        if not on_stack:
            alt = similar(args) if not args.regex else []
            trec_samples.die("no sample has %s on its stack%s" % (
                args.func, "; similar names: " + ", ".join(alt) if alt else ""))
    except trec_samples.TreportError as e:
        trec_samples.die(str(e))
    except re.error as e:
        trec_samples.die("--regex %s: %s" % (args.func, e))
    shown = args.func if not args.regex else "%s (%s)" % (args.func, ", ".join(sorted(names)[:5]))
    out = ["# callers of %s in %s" % (shown, args.recording),
           "# on the stack in %d of %d samples (%.2f%%), the leaf in %d (%.2f%%)"
           % (on_stack, total, 100.0 * on_stack / total, leaf, 100.0 * leaf / total),
           "#",
           "# share of those %d samples, samples, callers (indented: the caller of the line above)" % on_stack]
    show(tree, tree.count, args.min, 0, out)
    try:
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # | head
        sys.stderr.close()


if __name__ == "__main__":
    main()
