# CPython 3.12+ -X perf / -X perf_jit workload for test_python_perf_tramp.sh:
# N distinct functions, each called once, fill the first trampoline arenas
# (one copy per code object: 11 or 16 bytes with -X perf, 272 with 3.13's
# -X perf_jit after its first arena), so the functions below, called
# later, run through trampolines in later arenas. Whole chain:
# <module> -> late_main -> late_caller -> late_leaf.
#   usage: python3.13 -X perf_jit late_arenas.py [N (6000)] [SECONDS (2)]
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
SECS = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
ns = {}
exec(compile("\n".join("def f%d(x):\n    return x + %d\n" % (i, i) for i in range(N)),
             "gen.py", "exec"), ns)
for i in range(N):
    ns["f%d" % i](i)


def late_leaf(n):
    h = n
    for i in range(3000):
        h = (h * 1103515245 + 12345) & 0xFFFFFFFF
    return h


def late_caller(secs):
    end = time.monotonic() + secs
    n = 0
    while time.monotonic() < end:
        late_leaf(n)
        n += 1
    return n


def late_main(secs):
    return late_caller(secs)


late_main(SECS)
