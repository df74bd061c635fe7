#!/usr/bin/env python3
"""Facts about a recording, from trdump's text (test-only).

usage: trcheck.py DUMP [--warmup-ms N] [--pid PID] [--func FILE_SUBSTR:NAME:LO:HI ...]

With --pid, the facts of samples are of that process's samples only.

Prints key=value lines:
  samples, pids, tids, comms (sorted, comma separated), kernel_samples
  native_frames, frames_outside_mappings (non-absolute native frames whose
    (file id, vaddr) is in no snapshot mapping of their pid), absolute_frames
  unknown_pid / unknown_pc: samples ending in NO_PID_INFO / LOOKUP_TEXT_SECTION,
    and *_late: the same after the first N ms of the pid's life (exec event,
    or first sample)
  max_user_frames, samples_reaching_NAME (late samples with a frame in the
    function, by file path substring and ELF vaddr range), late_samples,
    late_clean (late samples not ending in an error frame),
    samples_A_with_B (late samples with frames in both functions)
  jit_samples (late samples with a frame in anonymous executable memory:
    an absolute frame in a snapshot mapping without file), jit_samples_with_NAME
  events_fork/exec/exit/comm, exec_filenames (count per filename)
  metrics_records, metric_NAME (last METRICS record), summary_samples

trdump separates fields by one space and writes strings as they are, so a
mapping's path, a file's path and a comm may hold spaces: such fields are
found by the fixed fields around them (and the counts the lines carry).
"""
import collections
import os
import re
import sys

ERR_NO_PID_INFO = 5
ERR_LOOKUP_TEXT = 4000
F_ERROR, F_ABSOLUTE = 1, 8


# A mapping of an M line starts "lo-hi/offset/file_id/bias/", then its path.
MAP_START = re.compile(r"[0-9a-f]+-[0-9a-f]+/[0-9a-f]+/[0-9a-f]+/[0-9a-f]+/")


def parse_sample(f):
    """An S line's fields: "S t pid tid cpu COMM nk nu FRAMES", the frames
    being the last nk + nu fields, so COMM ends where that count fits."""
    for j in range(len(f) - 2, 5, -1):
        if f[j].isdigit() and f[j + 1].isdigit() and len(f) - j - 2 == int(f[j]) + int(f[j + 1]):
            break
    else:
        raise ValueError("sample: frame counts do not match its frames")
    frames = []
    for x in f[j + 2:]:
        if x.startswith("k/"):
            continue
        kind, flags, fid, addr = x.split("/")
        frames.append((int(kind), int(flags), int(fid, 16), int(addr, 16)))
    return dict(t=int(f[1]), pid=int(f[2]), tid=int(f[3]), comm=" ".join(f[5:j]),
                nk=int(f[j]), frames=frames)


def parse_mappings(f):
    """An M line's mappings: "M t pid n MAPPING...", each MAPPING a
    MAP_START and a path that runs to the next one."""
    n, rest = int(f[3]), f[4:]
    starts = [i for i, x in enumerate(rest) if MAP_START.match(x)]
    if len(starts) != n or (rest and starts[:1] != [0]):
        raise ValueError("mappings: %d said, %d found (a path that looks like a mapping?)"
                         % (n, len(starts)))
    out = []
    for a, b in zip(starts, starts[1:] + [len(rest)]):
        rng, off, fid, bias, p = " ".join(rest[a:b]).split("/", 4)
        lo, hi = (int(v, 16) for v in rng.split("-"))
        out.append((lo, hi, int(fid, 16), int(bias, 16), p))
    return out


def split_exec(f):
    """An E line's COMM and FILENAME ("E t kind pid tid ppid code COMM FILENAME"):
    both may hold spaces; at an exec the comm is the filename's base name, cut
    to 15 bytes, which tells where it ends (else: at its first space)."""
    for k in range(8, len(f)):
        comm, name = " ".join(f[7:k]), " ".join(f[k:])
        if comm == os.path.basename(name)[:15]:
            return comm, name
    return f[7], " ".join(f[8:])


class Dump:
    """What trcheck needs of a dump, line by line."""

    def __init__(self):
        self.samples, self.maps, self.files = [], collections.defaultdict(list), {}
        self.ev, self.exec_names, self.born = collections.Counter(), collections.Counter(), {}
        self.metrics, self.nmetrics, self.summary = {}, 0, None

    def add(self, f):
        if f[0] == "S":
            self.samples.append(parse_sample(f))
        elif f[0] == "M":
            self.maps[int(f[2])] += parse_mappings(f)
        elif f[0] == "F":  # "F id size build_id_len PATH DEBUGLINK"; a debuglink is a file name
            self.files[int(f[1], 16)] = " ".join(f[4:-1])
        elif f[0] == "E":
            kind, pid = int(f[2]), int(f[3])
            self.ev[{1: "fork", 2: "exec", 3: "exit", 4: "comm"}.get(kind, "other")] += 1
            if kind == 2:
                self.exec_names[split_exec(f)[1]] += 1
                self.born[pid] = int(f[1])
        elif f[0] == "X":
            self.nmetrics += 1
            self.metrics = {kv.split("=")[1]: int(kv.split("=")[2]) for kv in f[2:]}
        elif f[0] == "Z":
            self.summary = int(f[3])


def main(argv):
    path = argv[1]
    warmup_ns = 200 * 10**6
    funcs, only_pid = [], None
    i = 2
    while i < len(argv):
        if argv[i] == "--warmup-ms":
            warmup_ns = int(argv[i + 1]) * 10**6
            i += 2
        elif argv[i] == "--pid":
            only_pid = int(argv[i + 1])
            i += 2
        elif argv[i] == "--func":
            fsub, name, lo, hi = argv[i + 1].split(":")
            funcs.append((fsub, name, int(lo, 16), int(hi, 16)))
            i += 2
        else:
            sys.exit("trcheck: unknown argument " + argv[i])

    d = Dump()
    for lineno, line in enumerate(open(path), 1):
        try:
            d.add(line.rstrip("\n").split(" "))
        except (ValueError, IndexError) as e:
            sys.exit("trcheck: %s:%d: %s" % (path, lineno, e))
    samples, maps, files, ev, exec_names, born = (
        d.samples, d.maps, d.files, d.ev, d.exec_names, d.born)
    metrics, nmetrics, summary = d.metrics, d.nmetrics, d.summary
    if only_pid is not None:
        samples = [s for s in samples if s["pid"] == only_pid]

    first = {}
    for s in samples:
        first.setdefault(s["pid"], s["t"])
    out = collections.OrderedDict()
    out["samples"] = len(samples)
    out["pids"] = len({s["pid"] for s in samples})
    out["tids"] = len({s["tid"] for s in samples})
    out["comms"] = ",".join(sorted({s["comm"] for s in samples}))
    out["kernel_samples"] = sum(1 for s in samples if s["nk"])
    native = outside = absolute = 0
    unk = collections.Counter()
    reach = collections.Counter()
    late = clean = 0
    both = collections.Counter()
    jit, jit_with = 0, collections.Counter()
    maxu = 0
    for s in samples:
        frames = s["frames"]
        maxu = max(maxu, len(frames))
        is_late = s["t"] - born.get(s["pid"], first[s["pid"]]) > warmup_ns
        late += is_late
        if frames and frames[-1][1] & F_ERROR:
            code = frames[-1][3]
            key = {ERR_NO_PID_INFO: "unknown_pid", ERR_LOOKUP_TEXT: "unknown_pc"}.get(code)
            if key:
                unk[key] += 1
                if is_late:
                    unk[key + "_late"] += 1
        for kind, flags, fid, addr in frames:
            if kind != 3:
                continue
            if flags & F_ABSOLUTE:
                absolute += 1
                continue
            native += 1
            if not any(fid == m[2] and m[0] <= addr + m[3] < m[1] for m in maps[s["pid"]]):
                outside += 1
        if is_late:
            clean += not (frames and frames[-1][1] & F_ERROR)
            hit = [name for fsub, name, lo, hi in funcs
                   if any(k == 3 and fsub in files.get(fid, "") and lo <= a < hi
                          for k, fl, fid, a in frames)]
            for name in hit:
                reach[name] += 1
            if any(k == 3 and fl & F_ABSOLUTE and
                   any(m[2] == 0 and m[0] <= a < m[1] for m in maps[s["pid"]])
                   for k, fl, fid, a in frames):
                jit += 1
                for name in hit:
                    jit_with[name] += 1
            for a in hit:
                for b in hit:
                    if a != b:
                        both[(a, b)] += 1
    out["native_frames"] = native
    out["frames_outside_mappings"] = outside
    out["absolute_frames"] = absolute
    for k in ("unknown_pid", "unknown_pc", "unknown_pid_late", "unknown_pc_late"):
        out[k] = unk[k]
    out["max_user_frames"] = maxu
    out["late_samples"] = late
    out["late_clean"] = clean
    for fsub, name, lo, hi in funcs:
        out["samples_reaching_" + name] = reach[name]
    for fa in funcs:
        for fb in funcs:
            if fa != fb:
                out["samples_%s_with_%s" % (fa[1], fb[1])] = both[(fa[1], fb[1])]
    out["jit_samples"] = jit
    for fsub, name, lo, hi in funcs:
        out["jit_samples_with_" + name] = jit_with[name]
    for k in ("fork", "exec", "exit", "comm"):
        out["events_" + k] = ev[k]
    out["exec_filenames"] = ",".join("%s:%d" % kv for kv in sorted(exec_names.items()))
    out["metrics_records"] = nmetrics
    for k, v in metrics.items():
        out["metric_" + k] = v
    out["summary_samples"] = summary if summary is not None else -1
    for k, v in out.items():
        print("%s=%s" % (k, v))


if __name__ == "__main__":
    main(sys.argv)
