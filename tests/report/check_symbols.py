# Symbolization against binutils: frames at real addresses of
# build/workloads/busy must give addr2line's inline chain and file:line
# (pprof output, decoded by go tool pprof) and its function names (folded),
# the outermost name being the ELF symbol as perf shows it.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
busy = os.path.join(t.WORKLOADS, "busy")
syms = [s for s in t.text_symbols(busy) if s[1] > 0]
d = t.tmpdir()

# Addresses spread over every sized function, 12 per function at most.
addrs = []
for start, size, name in syms:
    step = max(1, size // 12)
    addrs += list(range(start, start + size, step))
t.check(len(addrs) > 50, "symbols: enough addresses (%d)" % len(addrs))


def spec(flags):
    lines = ["meta freq_hz 1000", "file 0x1111 %s %s" % (busy, t.build_id(busy))]
    for i, a in enumerate(addrs):
        lines.append("sample %d 7 7 0 1 busy u:0x1111:0x%x%s" % (1000 + i, a, flags))
    return "\n".join(lines) + "\n"


def dwarf_name_ok(ours, a2l):
    # addr2line names the DWARF subprogram ("spin"), perf and we the ELF
    # symbol of the clone ("spin.constprop.0")
    return ours == a2l or ours.startswith(a2l + ".")


for flags, lookup_delta, label in (("", 0, "leaf"), (":2", 1, "return-address")):
    tr = t.write_tr(os.path.join(d, "sym-%s.tr" % label), spec(flags))
    ref = t.addr2line(busy, [a - lookup_delta for a in addrs])

    # folded: comm;outer;...;inner 1 per address
    folded = t.treport(tr, "--folded").stdout
    got = t.parse_folded(folded)
    bad = []
    for a in addrs:
        chain = ref[a - lookup_delta]
        if chain[0][0] == "??":
            continue
        outer = t.symbol_at(syms, a - lookup_delta)
        if outer is None:
            continue
        names = [f for f, _, _ in reversed(chain)]
        if not dwarf_name_ok(outer, names[0]):
            bad.append((hex(a), "symbol", outer, names[0]))
            continue
        key = ";".join(["busy", outer] + names[1:])
        if key not in got:
            bad.append((hex(a), key))
    t.check(not bad, "symbols(%s): folded names and inline chains match addr2line" % label, bad[:5])
    t.check(sum(got.values()) == len(addrs), "symbols(%s): folded counts sum to samples" % label)

    if not t.have_go():
        print("SKIP: go not installed: pprof line check")
        continue
    pb = os.path.join(d, "sym-%s.pb.gz" % label)
    t.treport(tr, "--pprof", "-o", pb)
    locs = t.pprof_locations(t.pprof_raw(pb))
    by_addr = {addr: lines for addr, lines in locs.values()}
    bad, inl = [], 0
    for a in addrs:
        chain = ref[a - lookup_delta]
        # no line info (crt code) or padding outside any function
        if chain[0][0] == "??" or chain[0][2] == 0 or not t.symbol_at(syms, a - lookup_delta):
            continue
        lines = by_addr.get(a)
        if lines is None or len(lines) != len(chain):
            bad.append((hex(a), lines, chain))
            continue
        inl += len(chain) > 1
        for (f, fl, ln), (rf, rfl, rln) in zip(lines, chain):
            rfl = "" if rfl == "??" else rfl
            if not dwarf_name_ok(f, rf) or fl != rfl or ln != rln:
                bad.append((hex(a), (f, fl, ln), (rf, rfl, rln)))
                break
    t.check(not bad, "symbols(%s): pprof lines (file:line, inline chain) match addr2line" % label, bad[:5])
    t.check(inl > 0, "symbols(%s): some addresses have inlined frames (%d)" % (label, inl))

t.finish()
