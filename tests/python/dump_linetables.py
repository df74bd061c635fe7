# Prints every code object of the given source files with CPython's own
# per-code-unit line numbers (co_positions), the reference for the
# location-table decoder test. One line per code object:
#   firstlineno <TAB> linetable hex <TAB> line of code unit 0,1,... (-1: none)
import sys


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


for path in sys.argv[1:]:
    with open(path, "rb") as f:
        top = compile(f.read(), path, "exec")
    for co in walk(top):
        lines = [(-1 if p[0] is None else p[0]) for p in co.co_positions()]
        print("%d\t%s\t%s" % (co.co_firstlineno, co.co_linetable.hex(),
                              ",".join(map(str, lines))))
