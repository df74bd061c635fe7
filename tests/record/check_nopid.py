#!/usr/bin/env python3
"""The early samples of short processes, from treport --json on stdin.

argv[1]: a regex the processes' comm matches in full. Early: each
process's first EARLY samples (not counting THROTTLED ones). Prints: processes, early samples, early
samples whose stack reaches the root (_start, no error frame), early
samples ending in NO_PID_INFO, early samples whose leaf is short_leaf,
and of those the ones with the whole chain _start ... main, short_mid,
short_leaf.
"""
import collections
import json
import re
import sys

EARLY = 2
want = re.compile(sys.argv[1])
per_pid = {}
for line in sys.stdin:
    s = json.loads(line)
    # THROTTLED: the CPU budget's choice (-a samples every process), not
    # the unwinder's.
    throttled = any(f["name"] == "[error: THROTTLED]" for f in s["frames"])
    if want.fullmatch(s["comm"]) and not throttled:
        per_pid.setdefault(s["pid"], []).append(s)
early = [s for v in per_pid.values() for s in sorted(v, key=lambda s: s["time"])[:EARLY]]
root = nopid = leaf = chain = 0
ends = collections.Counter()
for s in early:
    names = [f["name"] for f in s["frames"] if f["kind"] != "kernel"]
    errors = [n for n in names if n.startswith("[error: ")]
    whole = bool(names) and names[-1] == "_start" and not errors
    root += whole
    ends[errors[-1] if errors else names[-1] if names else "(no user frame)"] += 1
    nopid += "[error: NO_PID_INFO]" in errors
    if names and names[0] == "short_leaf":
        leaf += 1
        chain += whole and names[1:3] == ["short_mid", "main"]
print(len(per_pid), len(early), root, nopid, leaf, chain)
# How the early stacks end, for the log.
print("early stacks end in:", dict(ends.most_common(6)), file=sys.stderr)
