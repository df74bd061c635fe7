# Helpers for the treport tests: building gen_tr, writing recordings from
# specs, running treport, and independent parsers of its outputs (a
# reimplementation of stackcollapse-perf.pl's rules, go tool pprof text).
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.environ.get("TREC_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
BUILD = os.environ.get("TREC_BUILD", os.path.join(ROOT, "build-san"))
PLAIN = os.environ.get("TREC_PLAIN_BUILD", os.path.join(ROOT, "build"))
TREPORT = os.environ.get("TREPORT", os.path.join(BUILD, "treport"))
WORKLOADS = os.path.join(ROOT, "build", "workloads")

failures = 0


def check(ok, name, detail=""):
    global failures
    print(("PASS: " if ok else "FAIL: ") + name)
    if not ok:
        failures += 1
        if detail:
            print("  " + str(detail).replace("\n", "\n  "))
    sys.stdout.flush()
    return ok


def finish():
    sys.exit(1 if failures else 0)


def tmpdir():
    return tempfile.mkdtemp(prefix="trec-report-")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=kw.pop("text", True), **kw)


def build_workloads():
    subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "tests/workloads"),
                    "OUT=" + WORKLOADS], check=True, stdout=subprocess.DEVNULL)


_gen = None


def gen_tr():
    """Builds tests/report/gen_tr.c against the plain libtrecformat.a."""
    global _gen
    if _gen:
        return _gen
    out = os.path.join(tmpdir(), "gen_tr")
    lib = os.path.join(PLAIN, "libtrecformat.a")
    subprocess.run(["cc", "-O1", "-g", "-std=gnu11", "-D_GNU_SOURCE",
                    "-I" + os.path.join(ROOT, "format"), "-I" + os.path.join(ROOT, "bpf"),
                    "-o", out, os.path.join(ROOT, "tests/report/gen_tr.c"), lib,
                    "-lzstd", "-lz"], check=True)
    _gen = out
    return out


def write_tr(path, spec):
    r = subprocess.run([gen_tr(), path], input=spec, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("gen_tr: " + r.stderr)
    return path


def treport(*args, check_rc=True):
    r = run([TREPORT] + [str(a) for a in args])
    if check_rc and r.returncode:
        raise RuntimeError("treport %s failed (%d): %s" % (args, r.returncode, r.stderr))
    return r


def build_id(path):
    out = run(["readelf", "-n", path]).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else "-"


def text_symbols(path):
    """[(start, size, name)] of sized function symbols, from nm."""
    out = run(["nm", "-S", "--defined-only", path]).stdout
    syms = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    return sorted(syms)


def symbol_at(syms, addr):
    best = None
    for s, n, name in syms:
        if s <= addr < s + n:
            best = name
    return best


def addr2line(path, addrs):
    """{addr: [(func, file, line)] innermost first} from binutils addr2line -i -f."""
    out = run(["addr2line", "-a", "-i", "-f", "-e", path] + ["0x%x" % a for a in addrs]).stdout
    res, cur = {}, None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        l = lines[i]
        if re.fullmatch(r"0x[0-9a-f]+", l):
            cur = int(l, 16)
            res[cur] = []
            i += 1
            continue
        func, loc = l, lines[i + 1]
        loc = re.sub(r" \(discriminator \d+\)", "", loc)
        f, _, ln = loc.rpartition(":")
        res[cur].append((func, f, int(ln) if ln.isdigit() else 0))
        i += 2
    return res


def parse_folded(text):
    stacks = {}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def stackcollapse(text):
    """stackcollapse-perf.pl's rules, reimplemented: header line gives comm
    (spaces to '_') and period; frames leaf first; '+0x..' offsets dropped;
    [unknown] in a known dso becomes [dso basename]; ';' to ':', text from
    the first '(' dropped unless (anonymous namespace), quotes dropped.
    Returns {stack: summed period}."""
    stacks, stack, comm, period = {}, [], None, 1
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if comm is not None:
                key = ";".join([comm] + stack)
                stacks[key] = stacks.get(key, 0) + period
            stack, comm = [], None
            continue
        m = re.match(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+", line)
        if m and not line.startswith("\t"):
            comm = m.group(1).replace(" ", "_")
            pm = re.search(r":\s*(\d+)*\s+(\S+):\s*$", line)
            period = int(pm.group(1)) if pm and pm.group(1) else 1
            continue
        m = re.match(r"^\s*(\w+)\s*(.+) \((.*)\)", line)
        if not m:
            raise ValueError("unrecognized line: %r" % line)
        pc, func, mod = m.groups()
        func = re.sub(r"\+0x[\da-f]+$", "", func)
        if func == "[unknown]":
            func = "[%s]" % (re.sub(r".*/", "", mod) if mod != "[unknown]" else "unknown")
        func = func.replace(";", ":")
        if not re.search(r"\.\(.*\)\.", func):
            func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
        func = func.replace('"', "").replace("'", "")
        stack.insert(0, func)
    return stacks


def pprof_env():
    d = tmpdir()
    env = dict(os.environ, HOME=d, GOCACHE=os.path.join(d, "cache"), GOPATH=os.path.join(d, "gopath"),
               GOFLAGS="", GOPROXY="off", PPROF_TMPDIR=d)
    return env


def have_go():
    return subprocess.run(["sh", "-c", "command -v go"], capture_output=True).returncode == 0


def pprof_raw(path):
    r = subprocess.run(["go", "tool", "pprof", "-raw", "-symbolize=none", path],
                       capture_output=True, text=True, env=pprof_env())
    if r.returncode:
        raise RuntimeError("go tool pprof -raw: " + r.stderr)
    return r.stdout


def pprof_locations(raw):
    """{location id: (address, [(func, file, line)] innermost first)}."""
    locs, cur = {}, None
    section = None
    for line in raw.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section != "Locations":
            continue
        m = re.match(r"^\s+(\d+): (0x[0-9a-f]+)(?: M=\d+)?\s?(.*)$", line)
        if m:
            cur = int(m.group(1))
            locs[cur] = (int(m.group(2), 16), [])
            rest = m.group(3)
        else:
            rest = line.strip()
        rest = re.sub(r"\s*s=\d+$", "", rest).strip()
        if rest:
            func, _, fl = rest.rpartition(" ")
            f, _, ln = fl.rpartition(":")
            locs[cur][1].append((func, f, int(ln) if ln.isdigit() else 0))
    return locs


def pprof_samples(raw):
    """[(count, [location ids leaf first], {label: value})]."""
    out, section = [], None
    for line in raw.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section != "Samples:" or line.startswith("samples/count"):
            continue
        m = re.match(r"^\s+(\d+)\s+(\d+): ([\d ]*)$", line)
        if m:
            out.append((int(m.group(1)), [int(x) for x in m.group(3).split()], {}))
            continue
        for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
            out[-1][2][k] = v
    return out


def pprof_folded(path):
    """The pprof profile as folded stacks (comm label as the root), via
    go tool pprof -raw: {stack: samples}."""
    raw = pprof_raw(path)
    locs = pprof_locations(raw)
    stacks = {}
    for count, ids, labels in pprof_samples(raw):
        frames = []
        for lid in reversed(ids):
            addr, lines = locs[lid]
            if not lines:
                frames.append("0x%x" % addr)
            for func, _, _ in reversed(lines):
                frames.append(func)
        key = ";".join([labels.get("comm", "?")] + frames)
        stacks[key] = stacks.get(key, 0) + count
    return stacks
