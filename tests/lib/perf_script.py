"""Samples of `treport --perf-script` (or perf script) output, for the
interpreter stack checkers (tests/python/, tests/perl/ and tests/php/check_stacks.py)."""
import re


def samples(f):
    """(time, [frame names leaf first]) per sample. Inlined functions are
    left out: the interleaving of interpreter and native frames is about
    the physical ones."""
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
            if dso != "inlined)":
                names.append(re.sub(r"\+0x[0-9a-f]+$", "", name))
        else:
            m = re.search(r" (\d+\.\d+): ", line)
            t = float(m.group(1)) if m else None
    if t is not None:
        yield t, names
