#!/usr/bin/env python3
"""Where the stacks of a Go process end, trec vs perf -g from one run.

usage: go_roots.py TREC_SCRIPT PERF_SCRIPT ROOTS MIN_PCT PERF_ADD
  TREC_SCRIPT: treport --perf-script of the recording (Go frames named from
               .gopclntab); PERF_SCRIPT: perf script of perf record -g
  ROOTS: "LO-HI=name ..." the root functions' ELF ranges (the workload is
         non-PIE, so these are its pcs; from the unstripped build's nm)
  MIN_PCT: the share of trec's samples that must end at a root
  PERF_ADD: hex; perf shows a frame of the stripped binary it cannot name
         as its offset in the file: add this (text vaddr - offset)
A sample ends at a root when its outermost user frame is in a root and it
has no error frame. Samples of a pid trecord had not synced yet
(NO_PID_INFO: nothing was unwound) and samples the CPU budget cut to
their leaf (THROTTLED: the budget's choice, not the unwinder's; a loaded
VM's stolen time inflates BPF's measured ns) are counted apart. Prints PASS/FAIL and
NOTE lines, and trec's stacks that did not end at a root.
"""
import collections
import sys

Frame = collections.namedtuple("Frame", "addr sym dso")
Sample = collections.namedtuple("Sample", "comm frames")


def read_samples(path, add=0):
    """Samples of perf script text (perf's or treport's): comm and frames,
    leaf first."""
    comm, frames = None, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                yield Sample(comm, frames)
            comm, frames = None, []
        elif line[0] in " \t":
            addr, _, rest = line.strip().partition(" ")
            sym, _, dso = rest.rpartition(" (")
            if comm is not None and dso != "inlined)":
                a = int(addr, 16) + (add if sym == "[unknown]" and dso.startswith("/") else 0)
                frames.append(Frame(a, sym, dso[:-1]))
        else:
            if comm is not None:
                yield Sample(comm, frames)
            comm, frames = line.split()[0], []
    if comm is not None:
        yield Sample(comm, frames)


def root_of(frames, roots):
    """The root a leaf-first frame list ends at, or None."""
    user = [f for f in frames if not f.dso.startswith("[kernel")]
    if not user or any(f.sym.startswith("[error:") for f in user):
        return None
    pc = user[-1].addr
    for lo, hi, name in roots:
        if lo <= pc < hi:
            return name
    return None


def measure(path, roots, comm, add=0):
    ends, bad, unsynced, throttled = collections.Counter(), collections.Counter(), 0, 0
    for s in read_samples(path, add):
        if not s.comm.startswith(comm):
            continue
        if any(f.sym == "[error: NO_PID_INFO]" for f in s.frames):
            unsynced += 1
            continue
        if any(f.sym == "[error: THROTTLED]" for f in s.frames):
            throttled += 1
            continue
        r = root_of(s.frames, roots)
        if r:
            ends[r] += 1
        else:
            bad[";".join(f.sym for f in reversed(s.frames))[:300]] += 1
    return ends, bad, unsynced, throttled


def main(argv):
    trec, perf, spec, min_pct = argv[1], argv[2], argv[3], float(argv[4])
    perf_add = int(argv[5], 16)
    roots = []
    for item in spec.split():
        rng, name = item.split("=", 1)
        lo, hi = (int(x, 16) for x in rng.split("-"))
        roots.append((lo, hi, name))
    comm = "goroots"
    ends, bad, unsynced, throttled = measure(trec, roots, comm)
    total = sum(ends.values()) + sum(bad.values())
    pct = 100.0 * sum(ends.values()) / total if total else 0.0
    print("NOTE: trec: %d samples, %.2f%% end at a root (%s); %d before the pid's sync, "
          "%d throttled" % (total, pct, ", ".join("%s %d" % kv for kv in ends.most_common()),
                            unsynced, throttled))
    ok = total >= 500 and pct >= min_pct
    print("%s: trec: >= %.1f%% of the Go samples end at a known root (%.2f%% of %d)"
          % ("PASS" if ok else "FAIL", min_pct, pct, total))
    for stack, n in bad.most_common(8):
        print("  not at a root (%d): %s" % (n, stack))
    need = ("runtime.goexit", "runtime.systemstack", "runtime.mcall")
    seen = all(ends[r] > 0 for r in need)
    print("%s: trec: goroutines end at goexit, g0 stacks at systemstack and mcall"
          % ("PASS" if seen else "FAIL"))
    pends, pbad, _, _ = measure(perf, roots, comm, perf_add)
    ptotal = sum(pends.values()) + sum(pbad.values())
    print("NOTE: perf -g: %d samples, %.2f%% end at a root (%s)"
          % (ptotal, 100.0 * sum(pends.values()) / ptotal if ptotal else 0.0,
             ", ".join("%s %d" % kv for kv in pends.most_common())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
