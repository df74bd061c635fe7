# Names as perf and objdump give them, from both symbol sources (the file
# itself, and the archive trecord would embed, rebuilt by rearchive):
#  - a PLT stub is NAME@plt, objdump's label, in the workload as built, stripped,
#    and built with IBT (.plt.sec); the lazy-binding header and IBT's .plt
#    entries are ".plt"; nothing is "_init";
#  - of several symbols at one address, the one perf's choose_best_symbol
#    keeps (reimplemented here from its rule), for every aliased function
#    of libc's debug symbol table (libc6-dbg).
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()


def sh(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rearchive_tool():
    out = os.path.join(d, "rearchive")
    inc = ["-I" + t.ROOT, "-I" + os.path.join(t.ROOT, "format"), "-I" + os.path.join(t.ROOT, "bpf"),
           "-I" + t.PLAIN, "-D_GNU_SOURCE"]
    subprocess.run(["cc", "-O1", "-g", "-std=gnu11"] + inc + ["-o", out,
                    os.path.join(t.ROOT, "tests/archive/rearchive.c"),
                    os.path.join(t.PLAIN, "librecord.a"), os.path.join(t.PLAIN, "libtrecformat.a"),
                    "-ldw", "-lelf", "-lzstd", "-lz", "-lpthread"], check=True)
    return out


REARCHIVE = rearchive_tool()


def names_at(path, addrs, comm):
    """{source: {addr: name}} for one-frame samples at addrs of path, read
    with --perf-script from the local file and from a rebuilt archive."""
    spec = ["file 0x1111 %s %s" % (path, t.build_id(path) or "-")]
    for i, a in enumerate(addrs):
        spec.append("sample %d 1 1 0 1 %s u:0x1111:0x%x" % (i + 1, comm, a))
    spec.append("summary 0 %d %d 0 0" % (len(addrs) + 1, len(addrs)))
    tr = t.write_tr(os.path.join(d, "n.tr"), "\n".join(spec) + "\n")
    arc = os.path.join(d, "n.arc.tr")
    subprocess.run([REARCHIVE, tr, arc, "symbols"], check=True, stderr=subprocess.DEVNULL)
    out = {}
    for src, f in (("local", tr), ("embedded", arc)):
        text = t.treport(f, "--perf-script", "--symbol-source=" + src).stdout
        got = {}
        for m in re.finditer(r"^\s+([0-9a-f]+) (\S+?)(\+0x[0-9a-f]+)? \(", text, re.M):
            got[int(m.group(1), 16)] = m.group(2)
        out[src] = got
    return out


# ---- PLT stubs -------------------------------------------------------------

def objdump_stubs(path):
    """[(addr, size, objdump's name)] of the PLT sections' stubs; the label
    objdump gives the lazy header (FIRST@plt-0x10, or .plt) is ours .plt."""
    text = t.run(["objdump", "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", path]).stdout
    labels = [(int(a, 16), n) for a, n in re.findall(r"^([0-9a-f]+) <([^>]+)>:$", text, re.M)]
    secs = {}
    for line in t.run(["readelf", "-SW", path]).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\.plt\S*)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            secs[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    out = []
    for a, n in labels:
        if not n.endswith("@plt"):
            n = ".plt"
        out.append((a, n))
    return out, secs


plt = os.path.join(t.WORKLOADS, "pltloop")
variants = {"as built": plt}
variants["stripped"] = os.path.join(d, "pltloop.stripped")
sh("strip", "--strip-all", "-o", variants["stripped"], plt)
ibt = os.path.join(d, "pltloop.ibt")
r = t.run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-fcf-protection=full", "-Wl,-z,ibtplt",
           "-o", ibt, os.path.join(t.ROOT, "tests/workloads/pltloop.c")])
if r.returncode == 0 and ".plt.sec" in t.run(["readelf", "-SW", ibt]).stdout:
    variants["IBT (.plt.sec)"] = ibt
    variants["IBT, stripped"] = ibt + ".stripped"
    sh("strip", "--strip-all", "-o", ibt + ".stripped", ibt)
else:
    print("note: no .plt.sec from this toolchain; IBT case not checked")

for what, path in variants.items():
    # objdump names stubs only in the unstripped file: take them from there
    ref = ibt if path.startswith(ibt) else plt
    stubs, secs = objdump_stubs(ref)
    want = {a + 4: n for a, n in stubs}
    # every 16 bytes of .plt that objdump does not label is ".plt" (IBT)
    lo, size = secs.get(".plt", (0, 0))
    for a in range(lo, lo + size, 16):
        if not any(s <= a < s + 16 for s, _ in stubs):
            want[a + 4] = ".plt"
    named = sorted(n for n in want.values() if n != ".plt")
    t.check(any(n == "rand@plt" for n in named) and any(n == "strtol@plt" for n in named),
            "%s: objdump names rand@plt and strtol@plt" % what, named)
    got = names_at(path, sorted(want), "pltloop")
    for src, g in got.items():
        bad = {hex(a): (g.get(a), n) for a, n in want.items() if g.get(a) != n}
        t.check(not bad, "%s, %s symbols: every PLT stub named as objdump names it (%d)" %
                (what, src, len(want)), bad)
        t.check("_init" not in g.values(), "%s, %s symbols: no _init frame" % (what, src))

# ---- aliases: perf's choose_best_symbol ------------------------------------

def perf_key(sym):
    """perf keeps the symbol with the smallest key at an address (ties: the
    first in the symbol table, the index being the last element)."""
    size, bind, name, idx = sym
    return (size == 0, bind == "WEAK", bind not in ("GLOBAL", "UNIQUE"),
            len(name) - len(name.lstrip("_")), -len(name), idx)


libc = os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6")
bid = t.build_id(libc) if os.path.exists(libc) else None
dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]) if bid else ""
if not os.path.exists(dbg):
    print("SKIP: libc's debug file (libc6-dbg) is not installed: aliases not checked")
    t.finish()

by_addr = {}
for line in t.run(["readelf", "-sW", dbg]).stdout.splitlines():
    f = line.split()
    if len(f) < 8 or not f[0].endswith(":") or f[3] not in ("FUNC", "IFUNC") or f[6] == "UND":
        continue
    addr, size = int(f[1], 16), int(f[2], 0)
    if addr:
        by_addr.setdefault(addr, []).append((size, f[4], f[7], int(f[0][:-1])))
aliased = {a: min(s, key=perf_key)[2] for a, s in by_addr.items() if len(s) > 1}
got = names_at(libc, sorted(aliased), "alias")
for src, g in got.items():
    bad = {hex(a): (g.get(a), n) for a, n in aliased.items() if g.get(a) != n}
    t.check(not bad, "libc, %s symbols: perf's choice at each of %d aliased addresses" %
            (src, len(aliased)), dict(list(bad.items())[:10]))
    byname = {}
    for a, s in by_addr.items():
        for sym in s:
            byname.setdefault(sym[2], a)
    for plain, perf_name in (("malloc", "malloc"), ("__libc_free", "cfree@GLIBC_2.2.5"),
                             ("__pthread_mutex_lock@GLIBC_2.2.5", "pthread_mutex_lock@@GLIBC_2.2.5")):
        if plain in byname:
            t.check(g.get(byname[plain]) == perf_name, "libc, %s symbols: %s reads %s, as in perf" %
                    (src, plain, perf_name), g.get(byname[plain]))
t.finish()
