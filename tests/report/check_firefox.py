import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t
import viewers as v

t.build_workloads()
d = t.tmpdir()


def diff(a, b):
    return "\n".join("%s %s" % kv for kv in sorted(set(a.items()) ^ set(b.items())))[:3000]


def table_ok(name, tab, cols):
    """every column there and as long as the table says"""
    n = tab.get("length")
    bad = [c for c in cols if not isinstance(tab.get(c), list) or len(tab[c]) != n]
    return not bad, "%s: %s" % (name, bad)


def check_shape(p, what):
    """The processed format, version 70, as src/types/profile.ts declares it."""
    m, sh = p["meta"], p["shared"]
    ok = m.get("preprocessedProfileVersion") == 70 and isinstance(m.get("startTime"), (int, float)) \
        and m.get("interval", 0) > 0 and m.get("symbolicated") is True \
        and isinstance(m.get("markerSchema"), list) and isinstance(p.get("libs"), list)
    t.check(ok, "%s: meta of processed version 70" % what, json.dumps(m)[:800])
    cats = m.get("categories", [])
    t.check([c["name"] for c in cats] == ["Other", "User", "Kernel", "Python", "JIT", "Error", "Perl", "Ruby", "PHP"]
            and cats[0]["color"] == "grey" and all(c["subcategories"] == ["Other"] for c in cats),
            "%s: categories, the first grey one the default" % what, cats)
    checks = [table_ok("stackTable", sh["stackTable"], ["frame", "prefixOffset"]),
              table_ok("frameTable", sh["frameTable"], ["address", "lib", "inlineDepth", "category",
                                                        "subcategory", "func", "nativeSymbol",
                                                        "innerWindowID", "line", "column",
                                                        "originalLocation"]),
              table_ok("funcTable", sh["funcTable"], ["name", "isJS", "relevantForJS", "resource",
                                                      "source", "lineNumber", "columnNumber",
                                                      "originalLocation"]),
              table_ok("resourceTable", sh["resourceTable"], ["name", "host", "type"]),
              table_ok("nativeSymbols", sh["nativeSymbols"], ["libIndex", "address", "name",
                                                              "functionSize"]),
              table_ok("sources", sh["sources"], ["id", "filename", "startLine", "startColumn",
                                                  "sourceMapURL", "content"]),
              table_ok("sourceLocationTable", sh["sourceLocationTable"], ["source", "line", "column"])]
    for th in p["threads"]:
        checks.append(table_ok("samples", th["samples"], ["stack", "time", "weight"]))
        checks.append(table_ok("markers", th["markers"], ["data", "name", "startTime", "endTime",
                                                          "phase", "category"]))
    t.check(all(c[0] for c in checks), "%s: every table's columns as long as its length" % what,
            [c[1] for c in checks if not c[0]])
    st, fr, fn = sh["stackTable"], sh["frameTable"], sh["funcTable"]
    S = sh["stringArray"]
    refs = all(0 <= off <= i for i, off in enumerate(st["prefixOffset"])) \
        and all(0 <= f < fr["length"] for f in st["frame"]) \
        and all(0 <= f < fn["length"] for f in fr["func"]) \
        and all(-1 <= x < len(p["libs"]) for x in fr["lib"]) \
        and all(0 <= c < len(cats) for c in fr["category"]) \
        and all(0 <= s < len(S) for s in fn["name"]) \
        and all(r == -1 or 0 <= r < sh["resourceTable"]["length"] for r in fn["resource"]) \
        and all(s is None or 0 <= s < sh["sources"]["length"] for s in fn["source"])
    t.check(refs, "%s: every index in range, parents before children" % what)
    threads = p["threads"]
    t.check(all(th["samples"]["time"] == sorted(th["samples"]["time"]) for th in threads)
            and all(isinstance(th["pid"], str) and isinstance(th["tid"], int) for th in threads)
            and len({(th["pid"], th["tid"]) for th in threads}) == len(threads)
            and all(th["isMainThread"] == (th["pid"] == str(th["tid"])) for th in threads),
            "%s: one thread per tid, pid a string, sample times in order" % what)
    schemas = {s["name"] for s in m["markerSchema"]}
    t.check(all(dt["type"] in schemas for th in threads for dt in th["markers"]["data"]),
            "%s: every marker's type has a schema" % what, schemas)


def frames_of(p, cat):
    sh = p["shared"]
    S, fr, fn = sh["stringArray"], sh["frameTable"], sh["funcTable"]
    names = [c["name"] for c in p["meta"]["categories"]]
    return {S[fn["name"][fr["func"][i]]] for i in range(fr["length"]) if names[fr["category"][i]] == cat}


# ---- synthetic: processes, threads, inlines, kernel, error, Python frames ----
tr = v.synthetic(d)
out = os.path.join(d, "syn.json")
r = t.treport(tr, "--firefox", "-o", out, check_rc=False)
t.check(r.returncode == 0, "synthetic: --firefox", r.stderr)
p = v.load_profile(out)
check_shape(p, "synthetic")
ff, fb = v.firefox_folded(p), v.folded_by_tid(tr)
t.check(ff == fb and sum(ff.values()) == 80,
        "synthetic: samples, weights and stacks equal --folded's, thread by thread (inlined frames "
        "included)", diff(ff, fb))
threads = {(th["pid"], th["tid"]): th for th in p["threads"]}
t.check(set(threads) == {("42", 42), ("42", 43), ("50", 50)}
        and threads[("42", 43)]["name"] == "worker" and threads[("42", 43)]["processName"] == "busy"
        and threads[("50", 50)]["name"] == "child",
        "synthetic: threads named by their command, with the process name",
        [(k, th["name"], th["processName"]) for k, th in threads.items()])
w = threads[("42", 43)]["samples"]
t.check(3 in w["weight"] and sum(w["weight"]) == 23, "synthetic: sample weights", w["weight"])
t50 = threads[("50", 50)]
S = p["shared"]["stringArray"]
mk = [(S[t50["markers"]["name"][i]], t50["markers"]["data"][i], t50["markers"]["startTime"][i])
      for i in range(t50["markers"]["length"])]
t.check([m[0] for m in mk] == ["fork", "exec", "exit"] and mk[0][1]["parentPid"] == "42"
        and mk[1][1]["filename"] == "./child" and mk[2][1]["status"] == 256
        and abs(mk[0][2] - 500) < 1e-6 and t50["processShutdownTime"] == mk[2][2],
        "synthetic: fork, exec and exit markers at their times", mk)
t.check(frames_of(p, "Kernel") >= {"do_syscall_64", "entry_SYSCALL_64", "ext4_read"}
        and frames_of(p, "Error") == {"[error: NATIVE_STACK_DELTA_INVALID]"}
        and frames_of(p, "Python") == {"[python 0x7f0000001000]"}
        and frames_of(p, "JIT") == {"jit_hot_loop"}
        and {"main", "recurse", "cmp_ints"} <= frames_of(p, "User"),
        "synthetic: kernel, error, Python, JIT and user categories",
        {c: frames_of(p, c) for c in ("Kernel", "Error", "Python", "JIT")})
sh = p["shared"]
lines = [sh["frameTable"]["line"][i] for i in range(sh["frameTable"]["length"])
         if S[sh["funcTable"]["name"][sh["frameTable"]["func"][i]]] == "recurse"]
srcs = {S[sh["sources"]["filename"][s]] for s in sh["funcTable"]["source"] if s is not None}
t.check(any(isinstance(x, int) and x > 0 for x in lines) and any(s.endswith("busy.c") for s in srcs),
        "synthetic: frames carry file and line", (lines, srcs))
lib = p["libs"][0] if p["libs"] else {}
t.check(lib.get("codeId") == t.build_id(os.path.join(t.WORKLOADS, "busy"))
        and len(lib.get("breakpadId", "")) == 33,
        "synthetic: libs with the build-id as codeId", lib)
gz = os.path.join(d, "syn.json.gz")
t.treport(tr, "--firefox", "-o", gz)
t.check(open(gz, "rb").read(2) == b"\x1f\x8b" and v.load_profile(gz) == p,
        "synthetic: gzipped when the output ends in .gz")
r = t.treport(tr, "--firefox")
t.check(json.loads(r.stdout) == p, "synthetic: JSON on stdout without -o")

# ---- merged recordings: their pids kept apart ----
r = t.treport(tr, tr, "--firefox", "-o", os.path.join(d, "two.json"), check_rc=False)
two = v.load_profile(os.path.join(d, "two.json")) if r.returncode == 0 else {"threads": []}
t.check(r.returncode == 0 and {th["pid"] for th in two["threads"]} == {"42.1", "42.2", "50.1", "50.2"},
        "two recordings: processes kept apart", r.stderr)

# ---- a real recording, when trecord can run ----
trecord = os.environ.get("TRECORD", os.path.join(t.BUILD, "trecord"))
if os.geteuid() == 0 and os.access(trecord, os.X_OK):
    rec = os.path.join(d, "threads.tr")
    r = subprocess.run([trecord, "-F", "499", "-f", "-q", "-o", rec, "--",
                        os.path.join(t.WORKLOADS, "threads"), "1"], capture_output=True, text=True)
    if r.returncode == 0:
        out = os.path.join(d, "threads.json.gz")
        t.treport(rec, "--firefox", "-o", out)
        p = v.load_profile(out)
        check_shape(p, "threads")
        ff, fb = v.firefox_folded(p), v.folded_by_tid(rec)
        t.check(ff == fb and len(p["threads"]) >= 3,
                "threads: samples, weights and stacks equal --folded's (%d threads, %d samples)"
                % (len(p["threads"]), sum(ff.values())), diff(ff, fb))
    else:
        print("SKIP: trecord could not record: " + r.stderr.strip()[:200])
else:
    print("SKIP: trecord needs root: the recorded part")

# ---- hostile values and errors ----
spec = ["meta freq_hz banana", "file 0x1111 rel\xc3ative/\xffpath -",
        "pev 5 exit 9 9 0 -1 -", "pev 1 fork 9 9 4294967295 0 -",
        "sample 10 9 9 0 1 a\"b\\c u:0x1111:0x10 e:9999 k:0x10",
        "sample 18446744073709551615 0 0 0 18446744073709551615 - p:0x7f0000001000:0x500000007"]
bad = t.write_tr(os.path.join(d, "bad.tr"), "\n".join(spec) + "\n")
r = t.treport(bad, "--firefox", "-o", os.path.join(d, "bad.json"), check_rc=False)
ok = r.returncode == 0 and "Sanitizer" not in r.stderr and "runtime error" not in r.stderr
t.check(ok, "hostile values: --firefox runs cleanly", r.stderr[-1500:])
if ok:
    raw = open(os.path.join(d, "bad.json"), "rb").read()
    p = json.loads(raw.decode("utf-8"))
    check_shape(p, "hostile")
r = t.treport(tr, "--firefox", "-o", os.path.join(d, "no", "such", "x.json"), check_rc=False)
t.check(r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "cannot write" in r.stderr,
        "unwritable output: one message", r.stderr)
r = t.treport(tr, "--firefox", "--tid", "7", check_rc=False)
t.check(r.returncode != 0 and "nothing to export" in r.stderr and not r.stdout,
        "nothing to export: one message", r.stderr)
if os.path.exists("/dev/full"):
    with open("/dev/full", "w") as full:
        rr = subprocess.run([t.TREPORT, tr, "--firefox"], stdout=full, stderr=subprocess.PIPE, text=True)
    t.check(rr.returncode != 0 and "failed" in rr.stderr, "full disk: write error reported", rr.stderr)
t.finish()
