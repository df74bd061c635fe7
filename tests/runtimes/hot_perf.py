# A CPython workload with a known hot leaf and caller chain, for
# tests/runtimes (chain_share.py): Py_RunMain -> ... -> <module> ->
# run -> hotMain -> hotOuter -> hotMiddle -> hotLeaf. hotLeaf takes nearly all
# the CPU. Meant for CPython 3.12+ with -X perf, which gives every Python
# call a trampoline in anonymous memory named in /tmp/perf-PID.map
# ("py::hotLeaf:/path/hot_perf.py").
#   usage: python3.12 -X perf hot_perf.py [SECONDS (2.5)]
# (CPython does not inline Python functions, so every link is a frame.)
import os
import sys
import time


def hotLeaf(seed):
    a, b = seed, seed * 7
    for i in range(300):
        a = (a + b * 2654435761) & 0xFFFFFFFF
        b = (b ^ (a >> 15)) + i
    return a ^ b


def hotMiddle(seed):
    acc = 0
    for i in range(4):
        acc += hotLeaf(seed + i)
    return acc


def hotOuter(seed):
    acc = 0
    for i in range(4):
        acc ^= hotMiddle(seed + i)
    return acc


def hotMain(seed):
    return hotOuter(seed) ^ hotOuter(seed + 1)


def run(secs):
    end = time.monotonic() + secs
    acc = n = 0
    while time.monotonic() < end:
        acc += hotMain(n)
        n += 1
    return acc, n


if __name__ == "__main__":
    # The pid names the trampolines' /tmp/perf-PID.map for the tests.
    print("hot_perf.py: pid %d" % os.getpid(), flush=True)
    if hasattr(sys, "is_stack_trampoline_active") and not sys.is_stack_trampoline_active():
        print("hot_perf.py: note: the perf trampoline is off (run with -X perf)",
              file=sys.stderr)
    acc, n = run(float(sys.argv[1]) if len(sys.argv) > 1 else 2.5)
    print("hot_perf.py: %d rounds, checksum %d" % (n, acc))
