#!/usr/bin/env python3
"""Facts about a recording, from trdump's text (test-only).

usage: trcheck.py DUMP [--warmup-ms N] [--func FILE_SUBSTR:NAME:LO:HI ...]

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
"""
import collections
import sys

ERR_NO_PID_INFO = 5
ERR_LOOKUP_TEXT = 4000
F_ERROR, F_ABSOLUTE = 1, 8


def main(argv):
    path = argv[1]
    warmup_ns = 200 * 10**6
    funcs = []
    i = 2
    while i < len(argv):
        if argv[i] == "--warmup-ms":
            warmup_ns = int(argv[i + 1]) * 10**6
            i += 2
        elif argv[i] == "--func":
            fsub, name, lo, hi = argv[i + 1].split(":")
            funcs.append((fsub, name, int(lo, 16), int(hi, 16)))
            i += 2
        else:
            sys.exit("trcheck: unknown argument " + argv[i])

    samples, maps, files = [], collections.defaultdict(list), {}
    ev = collections.Counter()
    exec_names = collections.Counter()
    born = {}
    metrics, nmetrics, summary = {}, 0, None
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "S":
            frames = []
            for x in f[8:]:
                if x.startswith("k/"):
                    continue
                kind, flags, fid, addr = x.split("/")
                frames.append((int(kind), int(flags), int(fid, 16), int(addr, 16)))
            samples.append(dict(t=int(f[1]), pid=int(f[2]), tid=int(f[3]), comm=f[5],
                                nk=int(f[6]), frames=frames))
        elif f[0] == "M":
            pid = int(f[2])
            for m in f[4:]:
                rng, off, fid, bias, p = m.split("/", 4)
                lo, hi = (int(v, 16) for v in rng.split("-"))
                maps[pid].append((lo, hi, int(fid, 16), int(bias, 16), p))
        elif f[0] == "F":
            files[int(f[1], 16)] = f[4]
        elif f[0] == "E":
            kind, pid = int(f[2]), int(f[3])
            name = {1: "fork", 2: "exec", 3: "exit", 4: "comm"}.get(kind, "other")
            ev[name] += 1
            if kind == 2:
                exec_names[f[8]] += 1
                born[pid] = int(f[1])
        elif f[0] == "X":
            nmetrics += 1
            metrics = {kv.split("=")[1]: int(kv.split("=")[2]) for kv in f[2:]}
        elif f[0] == "Z":
            summary = int(f[3])

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
