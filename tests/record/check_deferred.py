#!/usr/bin/env python3
"""cc1's first second in a recording, from treport --json on stdin.

Prints: samples, samples reaching main, samples ending in NO_PAGE_INFO,
samples ending in another error. The window starts at each cc1 process's
first sample.
"""
import json
import sys

WINDOW_S = 1.0
first = {}
n = main = nopage = other = 0
for line in sys.stdin:
    s = json.loads(line)
    if s["comm"] != "cc1":
        continue
    t0 = first.setdefault(s["pid"], s["time"])
    if s["time"] - t0 > WINDOW_S:
        continue
    frames = s["frames"]
    n += 1
    if any(f["name"] == "main" for f in frames):
        main += 1
    if frames and frames[-1]["kind"] == "error":
        if frames[-1]["name"] == "[error: NATIVE_NO_PAGE_INFO]":
            nopage += 1
        else:
            other += 1
print(n, main, nopage, other)
