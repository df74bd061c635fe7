# Symbolization against binutils: frames at real addresses of the C and
# C++ workloads must give addr2line's inline chain and file:line (pprof
# output, decoded by go tool pprof) and its function names (folded), the
# outermost name being the ELF symbol as perf shows it; C++ names are
# compared after c++filt --no-params, the demangling treport shows.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

t.build_workloads()
d = t.tmpdir()


def demangle(names):
    names = sorted(set(names))
    out = t.run(["c++filt", "-p"], input="\n".join(names) + "\n").stdout.splitlines()
    return dict(zip(names, out))


def eu_names(path, addr):
    """Function names innermost first from elfutils eu-addr2line: the
    tie-breaker where binutils names an inlined function after its caller
    (it calls atof inlined into main "main")."""
    out = t.run(["eu-addr2line", "-i", "-f", "-e", path, "0x%x" % addr]).stdout.splitlines()
    return [demangle([l.split(" inlined at ")[0]]).popitem()[1] for l in out[0::2]]


def dwarf_name_ok(ours, a2l):
    # addr2line names the DWARF subprogram ("spin"), perf and we the ELF
    # symbol of the clone ("spin.constprop.0")
    return ours == a2l or ours.startswith(a2l + ".")


def check_program(prog):
    path = os.path.join(t.WORKLOADS, prog)
    raw = [s for s in t.text_symbols(path) if s[1] > 0]
    dm = demangle([n for _, _, n in raw])
    syms = [(a, n, dm[name]) for a, n, name in raw]
    # addresses spread over every sized function, 12 per function at most
    addrs = []
    for start, size, _ in syms:
        addrs += list(range(start, start + size, max(1, size // 12)))
    t.check(len(addrs) > 50, "%s: enough addresses (%d)" % (prog, len(addrs)))

    for flags, delta, label in (("", 0, "leaf"), (":2", 1, "return-address")):
        spec = ["meta freq_hz 1000", "file 0x1111 %s %s" % (path, t.build_id(path))]
        spec += ["sample %d 7 7 0 1 prog u:0x1111:0x%x%s" % (1000 + i, a, flags)
                 for i, a in enumerate(addrs)]
        tr = t.write_tr(os.path.join(d, "%s-%s.tr" % (prog, label)), "\n".join(spec) + "\n")
        ref = t.addr2line(path, [a - delta for a in addrs])
        names = demangle([f for chain in ref.values() for f, _, _ in chain])
        ref = {a: [(names[f], fl, ln) for f, fl, ln in chain] for a, chain in ref.items()}

        # folded: prog;outer;...;inner 1 per address
        got = t.parse_folded(t.treport(tr, "--folded").stdout)
        bad = []
        for a in addrs:
            chain = ref[a - delta]
            outer = t.symbol_at(syms, a - delta)
            if chain[0][0] == "??" or outer is None:
                continue  # no debug info (crt code) or padding between functions
            inner = [f for f, _, _ in reversed(chain)]
            if not dwarf_name_ok(outer, inner[0]):
                bad.append((hex(a), "symbol", outer, inner[0]))
                continue
            key = ";".join(["prog", outer] + inner[1:])
            if key not in got:
                eu = list(reversed(eu_names(path, a - delta)))
                if ";".join(["prog", outer] + eu[1:]) not in got:
                    bad.append((hex(a), key))
        t.check(not bad, "%s(%s): folded names and inline chains match addr2line" % (prog, label), bad[:5])
        t.check(sum(got.values()) == len(addrs), "%s(%s): folded counts sum to samples" % (prog, label))

        if not t.have_go():
            print("SKIP: go not installed: pprof line check")
            continue
        pb = os.path.join(d, "%s-%s.pb.gz" % (prog, label))
        t.treport(tr, "--pprof", "-o", pb)
        by_addr = {addr: lines for addr, lines in t.pprof_locations(t.pprof_raw(pb)).values()}
        bad, inl = [], 0
        for a in addrs:
            chain = ref[a - delta]
            if chain[0][0] == "??" or chain[0][2] == 0 or not t.symbol_at(syms, a - delta):
                continue
            lines = by_addr.get(a)
            if lines is None or len(lines) != len(chain):
                bad.append((hex(a), lines, chain))
                continue
            inl += len(chain) > 1
            eu = None
            for i, ((f, fl, ln), (rf, rfl, rln)) in enumerate(zip(lines, chain)):
                if not dwarf_name_ok(f, rf):
                    eu = eu or eu_names(path, a - delta)
                    rf = eu[i] if i < len(eu) else rf
                if not dwarf_name_ok(f, rf) or fl != ("" if rfl == "??" else rfl) or ln != rln:
                    bad.append((hex(a), (f, fl, ln), (rf, rfl, rln)))
                    break
        t.check(not bad, "%s(%s): pprof file:line and inline chains match addr2line" % (prog, label), bad[:5])
        t.check(inl > 0, "%s(%s): some addresses have inlined frames (%d)" % (prog, label, inl))


check_program("busy")
check_program("cxxexcept")
t.finish()
