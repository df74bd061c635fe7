# A CPU-bound Python program with a known call chain, for the end-to-end
# test (tests/python/test_python_record.sh): <module> -> Worker.run ->
# recurse x (DEPTH+1) -> sum() (C) -> gen -> leaf; also json and zlib
# calls into C from Python. "@calls F->G" marks the line where F calls G
# ("lib": code outside the script), "@leaf F" other lines F may be sampled at
# when it is the innermost Python frame, "@starts F" F's first line, where
# a new frame is before its first instruction (and a generator's while
# the generator object is made).
# Runs for SECONDS of its own CPU time, so that a loaded machine does not
# shrink the number of samples.
#   usage: python3 busy.py SECONDS [DEPTH]
import json  # @calls <module>->lib
import sys  # @calls <module>->lib
import time  # @calls <module>->lib
import zlib  # @calls <module>->lib

END = time.process_time() + float(sys.argv[1])
DEPTH = 5
if len(sys.argv) > 2:
    DEPTH = int(sys.argv[2])
BLOB = b"trec" * 256


def leaf(n):  # @starts leaf
    x = 0  # @leaf leaf
    for i in range(n):  # @leaf leaf
        x += i * i  # @leaf leaf
    return x  # @leaf leaf


def gen(k):  # @starts gen
    for i in range(k):  # @leaf gen
        yield leaf(3000)  # @calls gen->leaf


def recurse(n):  # @starts recurse
    if n == 0:  # @leaf recurse
        return sum(gen(10))  # @calls recurse->gen
    return recurse(n - 1)  # @calls recurse->recurse


class Worker:
    def run(self):  # @starts Worker.run
        total = 0  # @leaf Worker.run
        while time.process_time() < END:  # @leaf Worker.run
            total += recurse(DEPTH)  # @calls Worker.run->recurse
            total += zlib.crc32(BLOB) + len(json.dumps([total]))  # @calls Worker.run->lib
        return total  # @leaf Worker.run


Worker().run()  # @calls <module>->Worker.run
