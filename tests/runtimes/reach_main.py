#!/usr/bin/env python3
"""Whole stacks of frame-pointer runtimes, trec vs perf -g, from one run.

usage: reach_main.py NAME TREC_SCRIPT PERF_SCRIPT [--perf-add HEX] ROOT...
  TREC_SCRIPT: treport --perf-script output; PERF_SCRIPT: perf script output
  ROOT: a symbol substring (node::Start, JavaMain), or LO-HI: a hex ELF
        address range (the root functions of a stripped binary)
  --perf-add: perf shows an unnamed frame of a file as its offset in the
        mapping: add this (ELF vaddr - file offset of the text) to compare
Prints one Markdown row per tool: samples with a user stack, the share that
reaches a root, the same for the busiest thread, and trec's top errors.
"""
import collections
import re
import sys

HEADER_RE = re.compile(r"^\S.*?\s(?:\d+/)?(\d+)\s")
FRAME_RE = re.compile(r"^\s+([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)\s*$")


def samples(path, add=0):
    """(tid, [(addr, sym, dso)]) per sample, leaf first, user frames only."""
    tid, frames = None, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if frames is not None:
                yield tid, frames
            frames = None
        elif line[0] in " \t":
            m = FRAME_RE.match(line)
            if m and frames is not None and "kernel" not in m.group(3):
                addr = int(m.group(1), 16)
                if m.group(2) == "[unknown]" and m.group(3).startswith("/"):
                    addr += add
                frames.append((addr, m.group(2), m.group(3)))
        else:
            if frames is not None:
                yield tid, frames
            m = HEADER_RE.match(line)
            tid, frames = (int(m.group(1)) if m else None), []
    if frames is not None:
        yield tid, frames


def reaches(frames, roots):
    for addr, sym, dso in frames:
        if "[error:" in sym:
            continue
        for r in roots:
            if isinstance(r, tuple):
                if r[0] <= addr < r[1]:
                    return True
            elif r in sym:
                return True
    return False


def measure(path, roots, add=0):
    per_tid = collections.Counter()
    ok_tid = collections.Counter()
    errors = collections.Counter()
    for tid, frames in samples(path, add):
        if not frames:
            continue
        per_tid[tid] += 1
        ok_tid[tid] += reaches(frames, roots)
        for addr, sym, dso in frames:
            if sym.startswith("[error:"):
                errors[sym] += 1
    total, ok = sum(per_tid.values()), sum(ok_tid.values())
    busiest = per_tid.most_common(1)[0][0] if per_tid else None
    return total, ok, per_tid[busiest], ok_tid[busiest], errors


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def main(argv):
    name, trec, perf = argv[1:4]
    roots, add, args = [], 0, argv[4:]
    if args[:1] == ["--perf-add"]:
        add, args = int(args[1], 16), args[2:]
    for r in args:
        if re.match(r"^[0-9a-fA-F]+-[0-9a-fA-F]+$", r):
            lo, hi = r.split("-")
            roots.append((int(lo, 16), int(hi, 16)))
        else:
            roots.append(r)
    for tool, path in (("trec", trec), ("perf -g", perf)):
        total, ok, bt, bok, errors = measure(path, roots, add if tool == "perf -g" else 0)
        top = ", ".join("%s %d" % (e[8:-1], n) for e, n in errors.most_common(3))
        print("| %s | %s | %d | %s | %d | %s | %s |" % (
            name, tool, total, pct(ok, total), bt, pct(bok, bt), top or "-"))


if __name__ == "__main__":
    main(sys.argv)
