"""Samples of `treport --perf-script` (or perf script) output, for the
interpreter stack checkers (tests/{python,perl,php,ruby}/check_stacks.py)."""
import re


def samples(f, inlined=False, no_time=None):
    """(time, [frame names leaf first]) per sample. Inlined functions are
    left out unless inlined: the interleaving of interpreter and native
    frames is about the physical ones. A sample whose header has no time
    gets no_time; with None it is left out."""
    t, names = None, []
    for line in f:
        line = line.rstrip("\n")
        if not line.strip():
            if t is not None:
                yield t, names
            t, names = None, []
        elif line.startswith("\t"):
            _, _, rest = line.strip().partition(" ")
            name, _, dso = rest.rpartition(" (")
            if inlined or dso != "inlined)":
                names.append(re.sub(r"\+0x[0-9a-f]+$", "", name))
        else:
            m = re.search(r" (\d+\.\d+): ", line)
            t = float(m.group(1)) if m else no_time
    if t is not None:
        yield t, names
