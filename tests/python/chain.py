# A Python program with a known call chain, for the Python unwinder tests.
# The main thread ends up spinning in spin(), called by the C json encoder
# from a generator driven by a recursion under a method; a second thread
# spins in worker_spin(). Lines marked "@leaf" are where a sample of the
# spinning thread may land. Each thread writes its own view of its stack
# (CPython's frame objects: the independent reference) to DIR/<name>.txt
# as "qualname<TAB>filename<TAB>line" lines, innermost first, and prints
# "ready <name>" on stdout from inside its loop.
#   usage: python3 chain.py DIR
import json
import os
import sys
import threading
import zlib

DATA = b"trec" * 1024
OUT = sys.argv[1]


def write_stack(name):
    lines = []
    f = sys._getframe(1)
    while f is not None:
        lines.append("%s\t%s\t%d" % (f.f_code.co_qualname, f.f_code.co_filename, f.f_lineno))
        f = f.f_back
    tmp = os.path.join(OUT, name + ".tmp")
    with open(tmp, "w") as out:
        out.write("\n".join(lines) + "\n")
    os.rename(tmp, os.path.join(OUT, name + ".txt"))


def ready(name):
    os.write(1, ("ready %s\n" % name).encode())


def spin(obj):
    write_stack("main")
    n = 0
    while n >= 0:  # @leaf
        n += zlib.crc32(DATA)  # @leaf
        if n == zlib.crc32(DATA):  # @leaf
            ready("main")  # @leaf
    return str(obj)


def gen(k):
    for i in range(k):
        yield json.dumps({"k": i, "o": object()}, default=spin)


def recurse(n):
    if n == 0:
        total = 0
        for s in gen(3):
            total += len(s)
        return total
    return recurse(n - 1) + 1


class Walker:
    def run(self, depth):
        return recurse(depth)


def worker_spin():
    write_stack("worker")
    x = 0
    while x >= 0:  # @leaf
        x += sum(range(50))  # @leaf
        if x == sum(range(50)):  # @leaf
            ready("worker")  # @leaf


def worker():
    worker_spin()


def main():
    t = threading.Thread(target=worker, daemon=True)
    t.start()
    Walker().run(4)


main()
