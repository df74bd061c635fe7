# Prints every code object of the given source files with CPython's own
# line of each instruction, the reference for the 3.8-3.10 line-table
# decoder test (tests/unit/test_python_lines_old.c): 3.10's co_lines()
# (the C implementation's ranges), 3.8/3.9's dis.findlinestarts() (the
# stdlib's own co_lnotab reader). One line per code object:
#   firstlineno <TAB> table hex <TAB> line of instruction 0,1,... (-1: none)
# where the table is co_linetable (3.10) or co_lnotab (3.8, 3.9).
import dis
import sys


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


def lines_310(co):
    out = [-1] * (len(co.co_code) // 2)
    for start, end, line in co.co_lines():
        for b in range(start, end, 2):
            if b // 2 < len(out):
                out[b // 2] = -1 if line is None else line
    return out, co.co_linetable


def lines_lnotab(co):
    starts = list(dis.findlinestarts(co))
    out = []
    for b in range(0, len(co.co_code), 2):
        line = co.co_firstlineno
        for addr, lno in starts:
            if addr <= b:
                line = lno
        out.append(line)
    return out, co.co_lnotab


for path in sys.argv[1:]:
    with open(path, "rb") as f:
        top = compile(f.read(), path, "exec")
    for co in walk(top):
        lines, table = lines_310(co) if sys.version_info >= (3, 10) else lines_lnotab(co)
        print("%d\t%s\t%s" % (co.co_firstlineno, table.hex(), ",".join(map(str, lines))))
