"""Parsing of `perf script` style stack text (perf's own output and
treport --perf-script) and the unwind-quality measure of the benchmarks.

A sample is a header line followed by one line per frame, leaf first:
    <tab><addr> <symbol>[+0xoff] (<dso>)
and a blank line. Kernel frames name [kernel.kallsyms] (or a module) as
their dso; perf marks inlined frames with the dso "inlined".
"""

import os
import re

# The dso is the last "(...)": names may hold parentheses and spaces
# ("StubRoutines (1)", "f (x.py:16)", Java signatures).
FRAME_RE = re.compile(r"^\s+([0-9a-fA-F]+)\s+(.*)\s+\(([^()]*)\)\s*$")
OFFSET_RE = re.compile(r"\+0x[0-9a-fA-F]+$")


def parse_samples(lines):
    """Yields each sample as a list of (symbol, dso) frames, leaf first."""
    for _, frames in parse_samples_headers(lines):
        yield frames


def parse_samples_headers(lines):
    """Yields (header line, frames) for each sample."""
    header, frames = None, None
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if frames is not None:
                yield header, frames
            frames = None
            continue
        if line[0] in " \t":
            m = FRAME_RE.match(line)
            if m and frames is not None:
                frames.append((OFFSET_RE.sub("", m.group(2)), m.group(3)))
            continue
        if frames is not None:  # a header right after another sample
            yield header, frames
        header, frames = line, []
    if frames is not None:
        yield header, frames


def is_kernel_dso(dso):
    return dso.startswith("[kernel") or dso.endswith(".ko") or dso == "[bpf]" \
        or "kernel.kallsyms" in dso


def leaf_dso(frames):
    """The dso of the leaf frame; None if the sample's leaf is in the kernel."""
    for sym, dso in frames:
        if dso == "inlined":
            continue
        return None if is_kernel_dso(dso) else dso
    return None


def unwind_quality(lines, binary, roots):
    """Among samples whose leaf user frame lies in `binary` (a path or
    basename), the count that reach one of the `roots` symbols.
    Returns (reached, total)."""
    want = os.path.basename(binary)
    reached = total = 0
    for frames in parse_samples(lines):
        dso = leaf_dso(frames)
        if dso is None or os.path.basename(dso) != want:
            continue
        total += 1
        if any(sym in roots for sym, _ in frames):
            reached += 1
    return reached, total
