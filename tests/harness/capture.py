# gdb script (gdb -batch -x capture.py): captures unwinder test cases.
#
# Stops the inferior (at a breakpoint, or wherever it is when attached with
# -p), then writes one case file per selected thread: registers, the stack
# bytes from below rsp to the end of the stack mapping, the executable
# mappings, and gdb's physical frames (inlined frames folded into the
# function that contains them, tail-call frames dropped) as the expected
# answer.
#
# Environment:
#   TREC_CASE_OUT      output prefix; writes PREFIX.tTID.case (+ PREFIX.vdso)
#   TREC_CASE_BREAK    breakpoint location; unset: the inferior is attached
#   TREC_CASE_SKIP     hits to ignore before stopping (default 0)
#   TREC_CASE_STEPS    stepi count after the stop (default 0)
#   TREC_CASE_THREADS  "current" (default) or "all"
#   TREC_CASE_STOP_IN  functions the unwinder may stop in with an error (code
#                      without CFI), space-separated: "expect-stop-in" lines;
#                      "root:NAME": may end there cleanly (Go's stack switches)
#   TREC_CASE_RUN      a command run with the case files as arguments while
#                      the process is still stopped under gdb (so it can
#                      read the live /proc/PID/maps); output: PREFIX.out
#   TREC_CASE_CORE     set: dump the whole process with gcore to PREFIX.core
#                      (every mapping: coredump_filter 0x3f) and name it in
#                      the cases instead of a stack snapshot: the memory the
#                      Python unwinder reads (thread state, frames, code)
#   TREC_CASE_PYREF    a file the workload wrote at the stop point with its
#                      own Python stack ("qualname TAB file TAB line TAB
#                      entry" lines): copied into the cases as "pyframe"
#   TREC_CASE_GDB_INIT gdb commands (";"-separated) run before the program
#                      starts, e.g. symbol-file of an unstripped build
#   TREC_CASE_GDB_STOPPED  gdb commands run at the stop, before gdb's
#                      backtrace is taken (e.g. add-symbol-file for JIT code)
#
# Anonymous executable mappings (JIT code) are written as maps with no path.
import os
import shlex
import subprocess

import gdb

REGS = ("rip", "rsp", "rbp", "rax", "r9", "r11", "r15", "fs_base")
SP_REG = "rsp"  # tests/arm64/capture_qemu.py sets both for aarch64
RED_ZONE = 256
MAX_STACK = 512 * 1024


def env(name, default=None):
    v = os.environ.get(name)
    return default if v is None or v == "" else v


def read_maps(pid):
    maps = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip() if len(parts) > 5 else ""
            maps.append((lo, hi, parts[1], int(parts[2], 16), path))
    return maps


def run_commands(var):
    for cmd in env(var, "").split(";"):
        if cmd.strip():
            gdb.execute(cmd.strip(), to_string=True)


def stop_inferior():
    bp = env("TREC_CASE_BREAK")
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set backtrace past-main on")
    gdb.execute("set backtrace past-entry on")
    gdb.execute("set breakpoint pending on")
    run_commands("TREC_CASE_GDB_INIT")
    if bp:
        b = gdb.Breakpoint(bp)
        b.ignore_count = int(env("TREC_CASE_SKIP", "0"))
        gdb.execute("run", to_string=True)
        steps = int(env("TREC_CASE_STEPS", "0"))
        if steps:
            gdb.execute("stepi %d" % steps, to_string=True)


def physical_frames():
    frames = []
    f = gdb.newest_frame()
    last = f
    while f is not None:
        # Inlined and tail-call frames are gdb's reconstructions from debug
        # info; the machine stack has only the physical frames.
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            sym = f.function()
            name = sym.linkage_name if sym is not None else (f.name() or "??")
            if f.type() == gdb.SIGTRAMP_FRAME:
                name = "<signal>"
            frames.append((f.pc(), name))
        last = f
        try:
            f = f.older()
        except gdb.error:
            break
    reason = last.unwind_stop_reason()
    return frames, reason, gdb.frame_stop_reason_string(reason)


def dump_core(pid, path):
    # Read-only file mappings too (their data is on disk, but a core
    # should not need the files to be read as the process saw them).
    with open("/proc/%d/coredump_filter" % pid, "w") as f:
        f.write("0x3f")
    gdb.execute("gcore %s" % path, to_string=True)


def write_case(path, pid, tid, maps, vdso_path, core):
    frame = gdb.newest_frame()
    regs = {r: int(frame.read_register(r)) & 0xFFFFFFFFFFFFFFFF for r in REGS}
    rsp = regs[SP_REG]
    inf = gdb.selected_inferior()
    stack = None
    for lo, hi, perms, off, p in maps if not core else ():
        if lo <= rsp < hi:
            start = max(lo, rsp - RED_ZONE)
            end = min(hi, start + MAX_STACK)
            stack = (start, bytes(inf.read_memory(start, end - start)))
    frames, reason, reason_str = physical_frames()
    with open(path, "w") as out:
        out.write("trec-case 1\n")
        out.write("pid %d\ntid %d\n" % (pid, tid))
        for r in REGS:
            out.write("reg %s %x\n" % (r, regs[r]))
        for lo, hi, perms, off, p in maps:
            if "x" not in perms:
                continue
            if p == "[vdso]" and vdso_path:
                p = vdso_path
            elif p.startswith("[anon:"):
                p = ""
            elif p and not p.startswith("/"):
                continue
            out.write("map %x %x %x %s\n" % (lo, hi, off, p))
        if core:
            out.write("core %s\n" % core)
        if stack:
            start, data = stack
            out.write("mem %x %x\n" % (start, len(data)))
            for i in range(0, len(data), 64):
                out.write(data[i:i + 64].hex() + "\n")
        for pc, name in frames:
            out.write("frame %x %s\n" % (pc, name))
        out.write("gdb-stop %d %s\n" % (reason, reason_str))
        for fn in env("TREC_CASE_STOP_IN", "").split():
            out.write("expect-stop-in %s\n" % fn)
        pyref = env("TREC_CASE_PYREF")
        if pyref:
            with open(pyref) as ref:
                for line in ref:
                    if line.strip():
                        out.write("pyframe\t%s\n" % line.rstrip("\n"))
        out.write("end\n")


def main():
    prefix = env("TREC_CASE_OUT")
    stop_inferior()
    run_commands("TREC_CASE_GDB_STOPPED")
    inf = gdb.selected_inferior()
    pid = inf.pid
    maps = read_maps(pid)
    vdso_path = None
    for lo, hi, perms, off, p in maps:
        if p == "[vdso]":
            vdso_path = prefix + ".vdso"
            with open(vdso_path, "wb") as f:
                f.write(bytes(inf.read_memory(lo, hi - lo)))
    core = None
    if env("TREC_CASE_CORE"):
        core = prefix + ".core"
        dump_core(pid, core)
    if env("TREC_CASE_THREADS", "current") == "all":
        threads = sorted(inf.threads(), key=lambda t: t.ptid[1])
    else:
        threads = [gdb.selected_thread()]
    cases = []
    for th in threads:
        th.switch()
        tid = th.ptid[1]
        cases.append("%s.t%d.case" % (prefix, tid))
        write_case(cases[-1], pid, tid, maps, vdso_path, core)
    run = env("TREC_CASE_RUN")
    if run:
        with open(prefix + ".out", "w") as out:
            subprocess.run(shlex.split(run) + cases, stdout=out, stderr=subprocess.STDOUT)
    gdb.execute("kill", to_string=True)


if __name__ == "__main__":  # not when imported by capture_qemu.py
    try:
        main()
    except Exception as e:  # one clear line for the test log, then a non-zero exit
        print("capture.py: %s" % e)
        gdb.execute("kill", to_string=True)
        os._exit(1)
