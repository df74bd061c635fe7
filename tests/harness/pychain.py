# The Python case of the offline harness (test_unwind_python.sh): a known
# call chain that ends in a C library, where gdb stops it (a breakpoint on
# libz's deflate) and captures it:
#   <module> -> main -> Walker.run (a method) -> recurse x DEPTH+1 (recursion)
#   -> gen (a generator, resumed by C) -> json.dumps -> ... -> _json's C
#   encoder -> on_object (called back from C) -> zlib.compress -> deflate.
# Right before the call into zlib, on the same line, it writes its own view
# of its stack (CPython's frame objects: the independent reference) to the
# file named by argv[1] as "qualname<TAB>filename<TAB>line<TAB>entry"
# lines, innermost first. entry is 1 for the frames that C code entered
# (a C-level call of the eval loop starts there): the callback (from the
# json encoder), the generator (resumed by gen_iternext: 3.11 always, 3.12
# and 3.13 for this first, unspecialized FOR_ITER), the module; before 3.11
# every frame (each Python call is a C-level call of the eval loop), and
# frames are named by co_name (code objects have no qualified name yet).
#   usage: python3 pychain.py OUT
import json
import sys
import zlib

OUT = sys.argv[1]
DEPTH = 3
ENTERED_FROM_C = {"on_object", "gen", "<module>"}
EVERY_FRAME_ENTERED = sys.version_info < (3, 11)


def reference(value):
    lines = []
    f = sys._getframe(1)
    while f is not None:
        q = getattr(f.f_code, "co_qualname", f.f_code.co_name)
        lines.append("%s\t%s\t%d\t%d" % (q, f.f_code.co_filename, f.f_lineno,
                                         EVERY_FRAME_ENTERED or q in ENTERED_FROM_C))
        f = f.f_back
    with open(OUT, "w") as out:
        out.write("\n".join(lines) + "\n")
    return value


def on_object(obj):
    return len(zlib.compress(reference(b"trec" * 64)))


def gen(k):
    for i in range(k):
        yield json.dumps({"k": i, "o": object()}, default=on_object)


def recurse(n):
    if n == 0:
        return [s for s in gen(1)]
    return recurse(n - 1)


class Walker:
    def run(self):
        return recurse(DEPTH)


def main():
    print(Walker().run())


main()
