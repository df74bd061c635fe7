# gdb script (gdb-multiarch -batch -x capture_qemu.py): captures an arm64
# unwinder test case from a program that qemu-user runs with its gdbstub
# (qemu-aarch64 -g PORT), in tests/harness/capture.py's case format.
#
# Stops at a breakpoint, then writes PREFIX.tTID.case: pc, sp, x29, x30,
# the stack bytes from sp up, the executable mappings and gdb's physical
# frames. qemu-user maps the guest's files at the guest's own addresses
# in its host process (guest base 0), but with host permissions (no x):
# which mappings are code is read from each aarch64 ELF's PT_LOAD flags.
#
# qemu 7.2 has no vdso for aarch64 guests: signal handlers return through
# a trampoline page of its own (mov x8, #139; svc #0, as in the kernel's
# vdso). A case whose backtrace crosses it gets that page wrapped in a
# minimal ELF (PREFIX.sigtramp) and mapped like a vdso, so trecord's
# extraction sees what it sees in a kernel's vdso: the trampoline's code
# and an .eh_frame FDE marked as a signal frame.
#
# Environment (as capture.py's, plus):
#   TREC_QEMU_PORT     the gdbstub's TCP port
#   TREC_QEMU_PID      qemu's host pid (its /proc maps; also the case pid,
#                      which the harness must not sync: TREC_HARNESS_CASE_MAPS)
#   TREC_QEMU_PROGRAM  the aarch64 binary (gdb's symbols)
#   TREC_QEMU_SYSROOT  where the aarch64 libraries are (/usr/aarch64-linux-gnu)
#   TREC_QEMU_ANON_CODE  "LO;HI": two gdb expressions, evaluated at the stop,
#                      for a range of anonymous executable memory (JIT
#                      code), which qemu's host view cannot tell from data
#   TREC_CASE_OUT, TREC_CASE_BREAK, TREC_CASE_SKIP, TREC_CASE_STEPS,
#   TREC_CASE_STOP_IN, TREC_CASE_GDB_STOPPED  as in capture.py (no
#                      TREC_CASE_BREAK: runs until a signal stops it)
import os
import struct
import sys

import gdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import capture  # noqa: E402

EM_AARCH64 = 183
PT_LOAD, PF_X = 1, 1
MAX_PHDRS = 64


def exec_ranges(path):
    """File offset ranges of an aarch64 ELF's executable PT_LOADs, or None."""
    try:
        with open(path, "rb") as f:
            eh = f.read(64)
            if len(eh) < 64 or eh[:4] != b"\x7fELF" or eh[4] != 2:
                return None
            machine, = struct.unpack_from("<H", eh, 18)
            phoff, = struct.unpack_from("<Q", eh, 32)
            phentsize, phnum = struct.unpack_from("<HH", eh, 54)
            if machine != EM_AARCH64 or phentsize < 56 or phnum > MAX_PHDRS:
                return None
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
    except OSError:
        return None
    out = []
    for i in range(len(ph) // phentsize):
        p_type, p_flags, p_offset = struct.unpack_from("<IIQ", ph, i * phentsize)
        p_filesz, = struct.unpack_from("<Q", ph, i * phentsize + 32)
        if p_type == PT_LOAD and p_flags & PF_X:
            out.append((p_offset & ~0xFFF, p_offset + p_filesz))
    return out


def guest_maps(qemu_pid):
    """qemu's host mappings, 'x' only where the guest has aarch64 code."""
    maps = []
    cache = {}
    for lo, hi, perms, off, path in capture.read_maps(qemu_pid):
        perms = perms.replace("x", "-")
        if path.startswith("/"):
            if path not in cache:
                cache[path] = exec_ranges(path)
            for xlo, xhi in cache[path] or ():
                if off < xhi and off + (hi - lo) > xlo:
                    perms = perms[:2] + "x" + perms[3:]
        maps.append((lo, hi, perms, off, path))
    return maps


PAGE = 0x1000


def uleb(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def eh_frame(addr, code_lo, code_len):
    """A CIE with the 'S' (signal frame) augmentation and one FDE over the
    code, as the kernel's vdso describes __kernel_rt_sigreturn."""
    def entry(body):
        body += b"\0" * (-len(body) % 4)  # DW_CFA_nop
        return struct.pack("<I", len(body)) + body
    cie = entry(struct.pack("<I", 0) + b"\x01zRS\0" + uleb(4) + b"\x78" + bytes([30]) +
                uleb(1) + b"\x1b" + b"\x0c\x1f\x00")  # def_cfa sp, 0
    fde_at = addr + len(cie)
    # CIE pointer (back to the CIE), pc_begin (pc-relative), pc_range
    fde = entry(struct.pack("<Iii", len(cie) + 4, code_lo - (fde_at + 8), code_len) + uleb(0))
    return cie + fde + struct.pack("<I", 0)


def write_sigtramp_elf(path, code):
    """One page of code as an aarch64 ELF: headers and .eh_frame in page 0,
    the code in page 1 (PT_LOAD R+X and .text at vaddr 0x1000)."""
    shstr = b"\0.text\0.shstrtab\0.eh_frame\0"
    nsec = 4
    eh_off = 64 + 56 + nsec * 64
    eh = eh_frame(eh_off, PAGE, len(code))
    str_off = eh_off + len(eh)
    ehdr = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7,
                       3, EM_AARCH64, 1, PAGE, 64, 64 + 56, 0, 64, 56, 1, 64, nsec, 2)
    phdr = struct.pack("<IIQQQQQQ", PT_LOAD, 4 | PF_X, PAGE, PAGE, PAGE, len(code), len(code),
                       PAGE)
    sh = "<IIQQQQIIQQ"
    shdrs = struct.pack(sh, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    shdrs += struct.pack(sh, 1, 1, 6, PAGE, PAGE, len(code), 0, 0, 4, 0)        # .text
    shdrs += struct.pack(sh, 7, 3, 0, 0, str_off, len(shstr), 0, 0, 1, 0)       # .shstrtab
    shdrs += struct.pack(sh, 17, 1, 2, eh_off, eh_off, len(eh), 0, 0, 8, 0)     # .eh_frame
    head = ehdr + phdr + shdrs + eh + shstr
    with open(path, "wb") as f:
        f.write(head + b"\0" * (PAGE - len(head)) + code)


def sigtramp_maps(prefix, frames, maps):
    """The trampoline page of a signal frame in gdb's backtrace, as a map
    of its ELF wrapping; [] if there is none."""
    for pc, name in frames:
        if name != "<signal>":
            continue
        lo = pc & ~(PAGE - 1)
        code = bytes(gdb.selected_inferior().read_memory(lo, PAGE))
        path = prefix + ".sigtramp"
        write_sigtramp_elf(path, code)
        return [(lo, lo + PAGE, "r-xp", PAGE, path)]
    return []


def anon_code_maps():
    """TREC_QEMU_ANON_CODE's range, as an anonymous executable map."""
    exprs = capture.env("TREC_QEMU_ANON_CODE", "").split(";")
    if len(exprs) != 2:
        return []
    lo, hi = (int(gdb.parse_and_eval(e)) & 0xFFFFFFFFFFFFFFFF for e in exprs)
    lo &= ~(PAGE - 1)
    hi = (hi + PAGE - 1) & ~(PAGE - 1)
    return [(lo, hi, "r-xp", 0, "")] if lo < hi else []


def stop_inferior():
    for cmd in ("set pagination off", "set confirm off", "set backtrace past-main on",
                "set backtrace past-entry on", "set breakpoint pending on",
                "set sysroot %s" % capture.env("TREC_QEMU_SYSROOT", "/usr/aarch64-linux-gnu"),
                # the workloads' own libraries are outside the sysroot
                "set solib-search-path %s" % os.path.dirname(capture.env("TREC_QEMU_PROGRAM")),
                "file %s" % capture.env("TREC_QEMU_PROGRAM"),
                "target remote :%s" % capture.env("TREC_QEMU_PORT")):
        gdb.execute(cmd, to_string=True)
    # No breakpoint: run until a signal stops it (the test sends qemu a
    # SIGINT at a random moment; gdb stops the guest before delivering it).
    if capture.env("TREC_CASE_BREAK"):
        b = gdb.Breakpoint(capture.env("TREC_CASE_BREAK"))
        b.ignore_count = int(capture.env("TREC_CASE_SKIP", "0"))
    gdb.execute("continue", to_string=True)
    steps = int(capture.env("TREC_CASE_STEPS", "0"))
    if steps:
        gdb.execute("stepi %d" % steps, to_string=True)


def main():
    capture.REGS = ("pc", "sp", "x29", "x30")
    capture.SP_REG = "sp"
    stop_inferior()
    capture.run_commands("TREC_CASE_GDB_STOPPED")
    if gdb.newest_frame().architecture().name() != "aarch64":
        raise RuntimeError("the inferior is not aarch64")
    qemu_pid = int(capture.env("TREC_QEMU_PID"))
    tid = gdb.selected_thread().ptid[1]
    prefix = capture.env("TREC_CASE_OUT")
    case = "%s.t%d.case" % (prefix, tid)
    maps = guest_maps(qemu_pid)
    frames = capture.physical_frames()[0]
    maps = [m for m in maps if "x" in m[2]] + sigtramp_maps(prefix, frames, maps) + \
        anon_code_maps() + [m for m in maps if "x" not in m[2]]
    capture.write_case(case, qemu_pid, tid, maps, None, None)
    gdb.execute("kill", to_string=True)


try:
    main()
except Exception as e:  # one clear line for the test log, then a non-zero exit
    print("capture_qemu.py: %s" % e)
    os._exit(1)
