import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()
busy = os.path.join(t.WORKLOADS, "busy")
bid = t.build_id(busy)
syms = {name: (start, size) for start, size, name in t.text_symbols(busy)}


def eu_inlines(addr):
    """inlined functions at addr, caller first, from elfutils eu-addr2line"""
    out = t.run(["eu-addr2line", "-i", "-f", "-e", busy, "0x%x" % addr]).stdout.splitlines()
    return [l.split(" inlined at ")[0] for l in out[0::2]][-2::-1]


# spin (leaf) and a return address in main with an inlined function there
main, size = syms["main"]
ret = next(a for a in range(main + 1, main + size) if eu_inlines(a - 1))
frames = "u:0x1111:0x%x u:0x1111:0x%x:2" % (syms["spin.constprop.0"][0] + 0x10, ret)
full = t.parse_folded(t.treport(
    t.write_tr(os.path.join(d, "ref.tr"), "file 0x1111 %s %s\nsample 1 1 1 0 1 busy %s\n" % (busy, bid, frames)),
    "--folded").stdout)
ref_stack = list(full)[0]
t.check(ref_stack == ";".join(["busy", "main"] + eu_inlines(ret - 1) + ["spin.constprop.0"]),
        "reference stack from the unstripped binary (inlines as eu-addr2line)", ref_stack)


def sh(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def report_for(path, *opts, record_bid=bid):
    tr = t.write_tr(os.path.join(d, "x.tr"),
                    "file 0x1111 %s %s\nsample 1 1 1 0 1 busy %s\n" % (path, record_bid, frames))
    return t.treport(tr, "--folded", *opts, check_rc=False)


# .build-id layout in a private debug dir
dbgroot = os.path.join(d, "debug")
os.makedirs(os.path.join(dbgroot, ".build-id", bid[:2]))
dbgfile = os.path.join(dbgroot, ".build-id", bid[:2], bid[2:] + ".debug")
sh("objcopy", "--only-keep-debug", busy, dbgfile)
stripped = os.path.join(d, "bin", "busy")
os.makedirs(os.path.dirname(stripped))
sh("strip", "--strip-all", "-o", stripped, busy)
t.check(t.build_id(stripped) == bid, "stripped copy keeps the build-id")

r = report_for(stripped)
t.check(list(t.parse_folded(r.stdout)) == ["busy;[busy];[busy]"], "stripped, no debug file: unresolved")
r = report_for(stripped, "--debug-dir", dbgroot)
t.check(list(t.parse_folded(r.stdout)) == [ref_stack], "stripped + .build-id debug file: resolved with inlines", r.stdout)
r = report_for(os.path.join(d, "gone", "busy"), "--debug-dir", dbgroot)
t.check(list(t.parse_folded(r.stdout)) == [ref_stack], "binary missing + .build-id debug file: resolved", r.stdout)

# a different build at the recorded path: never used; the debug file of the
# recorded build-id is
other = os.path.join(d, "other", "busy")
os.makedirs(os.path.dirname(other))
sh("cc", "-O0", "-g", "-o", other, os.path.join(t.ROOT, "tests/workloads/busy.c"))
r = report_for(other, "--debug-dir", dbgroot)
t.check(list(t.parse_folded(r.stdout)) == [ref_stack] and r.stderr.count("not using") == 1,
        "different build at the path: warned once, debug file by build-id used", r.stdout + r.stderr)
r = report_for(other)
t.check(list(t.parse_folded(r.stdout)) == ["busy;[busy];[busy]"] and "build-id" in r.stderr,
        "different build, no debug file: unresolved, never misnamed", r.stdout + r.stderr)

# .gnu_debuglink next to the binary
ldir = os.path.join(d, "link")
os.makedirs(ldir)
shutil.copy(dbgfile, os.path.join(ldir, "busy.debug"))
linked = os.path.join(ldir, "busy")
sh("objcopy", "--strip-all", "--add-gnu-debuglink=" + os.path.join(ldir, "busy.debug"), busy, linked)
r = report_for(linked)
t.check(list(t.parse_folded(r.stdout)) == [ref_stack], ".gnu_debuglink: resolved", r.stdout)

# MiniDebugInfo: function symbols in an xz-compressed .gnu_debugdata
mdir = os.path.join(d, "mini")
os.makedirs(mdir)
fsyms = os.path.join(mdir, "keep")
with open(fsyms, "w") as f:
    for name in syms:
        f.write(name + "\n")
mini = os.path.join(mdir, "mini_debuginfo")
sh("objcopy", "--only-keep-debug", busy, mini + ".full")
sh("objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section", ".comment",
   "--keep-symbols=" + fsyms, mini + ".full", mini)
sh("xz", "-f", mini)
minibin = os.path.join(mdir, "busy")
sh("strip", "--strip-all", "-o", minibin, busy)
sh("objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", minibin)
r = report_for(minibin)
t.check(list(t.parse_folded(r.stdout)) == ["busy;main;spin.constprop.0"],
        ".gnu_debugdata MiniDebugInfo: function names (no DWARF, so no inlines)", r.stdout + r.stderr)
t.finish()
